import { AWS_HOST_SUFFIXES, type DestinationRule, META_GRAPH_HOSTS, META_MEDIA_HOSTS, safeDestination, UnsafeDestinationError, withConfiguredHost } from '../../../../lambda/core/adapters/outbound/safe-destination';

const MEDIA: DestinationRule = { purpose: 'a media download', hosts: [...META_GRAPH_HOSTS, ...META_MEDIA_HOSTS] };
const TRANSCRIPTS: DestinationRule = { purpose: 'a transcript file', hosts: [], hostSuffixes: AWS_HOST_SUFFIXES };
const OUTSIDE_LAMBDA = {};
const IN_LAMBDA = { AWS_LAMBDA_RUNTIME_API: '127.0.0.1:9001' };

const refusal = (url: string, rule: DestinationRule = MEDIA, env: NodeJS.ProcessEnv = OUTSIDE_LAMBDA) => {
  try {
    safeDestination(url, rule, env);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(UnsafeDestinationError);
    return (error as Error).message;
  }
};

test('Meta’s hosts over https take the token; nothing else does', () => {
  expect(refusal('https://graph.facebook.com/v23.0/123')).toBeUndefined();
  expect(refusal('https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1&ext=2&hash=3')).toBeUndefined();
  expect(refusal('https://LOOKASIDE.fbsbx.com/x')).toBeUndefined();
  for (const url of ['https://attacker.example.com/x', 'https://lookaside.fbsbx.com.attacker.example.com/x', 'https://fbsbx.com/x', 'https://169.254.169.254/latest/meta-data/']) {
    expect(refusal(url)).toMatch(/is not one of graph\.facebook\.com, lookaside\.fbsbx\.com$/);
  }
  expect(refusal('http://lookaside.fbsbx.com/x')).toMatch(/only https/);
  expect(refusal('ftp://lookaside.fbsbx.com/x')).toMatch(/only https/);
  expect(refusal('https://user:secret@lookaside.fbsbx.com/x')).toMatch(/credentials in it/);
  expect(refusal('not a url')).toMatch(/not a URL/);
});

test('loopback (the local fakes) only outside Lambda, where it is the runtime API', () => {
  for (const url of ['http://127.0.0.1:4010/media-download/1', 'http://localhost:4010/x', 'http://[::1]:4010/x']) {
    expect(refusal(url)).toBeUndefined();
    expect(refusal(url, MEDIA, IN_LAMBDA)).toMatch(/loopback inside Lambda is the runtime API/);
  }
});

test('AWS’s files are fetched from AWS hosts only', () => {
  expect(refusal('https://s3.sa-east-1.amazonaws.com/aws-transcribe-sa-east-1-prod/123/voice-abc/asrOutput.json?X-Amz-Signature=x', TRANSCRIPTS)).toBeUndefined();
  expect(refusal('https://attacker.example.com/asrOutput.json', TRANSCRIPTS)).toMatch(/is not one of \*\.amazonaws\.com, \*\.amazonaws\.com\.cn$/);
  expect(refusal('https://amazonaws.com.attacker.example.com/x', TRANSCRIPTS)).toBeDefined();
});

test('a root the deployment configured (whatsAppApiBaseUrl) is trusted as Meta’s own, over https', () => {
  const rule = withConfiguredHost({ purpose: 'the Graph API', hosts: META_GRAPH_HOSTS }, 'https://graph-egress.corp.example.com/v23.0');
  expect(refusal('https://graph-egress.corp.example.com/v23.0/123/messages', rule)).toBeUndefined();
  expect(refusal('http://graph-egress.corp.example.com/v23.0/123/messages', rule)).toMatch(/only https/);
  expect(refusal('https://elsewhere.example.com/x', rule)).toMatch(/is not one of graph\.facebook\.com, graph-egress\.corp\.example\.com$/);
});
