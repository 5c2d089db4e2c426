import { App, Duration, Stack, Stage } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AgentPipeline, type AgentPipelineProps, Locale } from '../../lib';
import { MEDIA_DEFAULTS } from '../../lib/contract';
import { type FunctionTold, pipelineProps, roleStatements, stagedDocument, statement, synthPipeline, type SynthesizedPipeline } from '../support/synthesized-pipeline';

const PLANE = { adminPhoneNumbers: ['5511999990000'] };

/** What the function whose description starts so is told. */
function toldToFunction({ stack, template }: Pick<SynthesizedPipeline, 'stack' | 'template'>, descriptionStart: string): FunctionTold {
  const [fn] = Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp(`^${descriptionStart}`) } }));
  return { environment: fn.Properties.Environment.Variables, document: stagedDocument(Stage.of(stack)!.outdir, fn.Properties.Code) };
}

describe('the media bucket', () => {
  test('is private, TLS only, owned by the account, unversioned, S3-managed without a key, and expires objects after the conversation retention', () => {
    const { template } = synthPipeline({ conversationRetention: Duration.days(90) });
    template.resourceCountIs('AWS::S3::Bucket', 1);
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      VersioningConfiguration: Match.absent(),
      LifecycleConfiguration: { Rules: [{ ExpirationInDays: 90, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }] },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
  });

  test('is encrypted with the pipeline key when there is one, with a bucket key', () => {
    const { template, stack } = synthPipeline({}, (scope) => ({ encryptionKey: new kms.Key(scope, 'Key') }));
    const [key] = Object.keys(template.findResources('AWS::KMS::Key'));
    expect(stack.resolve(key)).toBeDefined();
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ BucketKeyEnabled: true, ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: { 'Fn::GetAtt': [key, 'Arn'] } } }] },
    });
  });

  test('keeps the table’s removal policy', () => {
    synthPipeline().template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  test('the orchestrator and the operator function are told the bucket and the default limits (an operator\'s attachments are held to them)', () => {
    const synth = synthPipeline(PLANE);
    const bucketName = synth.stack.resolve(synth.pipeline.mediaBucket!.bucketName);
    const orchestrator = toldToFunction(synth, 'Turn orchestrator');
    expect(orchestrator.environment).toMatchObject({ MEDIA_BUCKET_NAME: bucketName });
    expect(orchestrator.document.media).toMatchObject({ maxBytes: 16 * 1024 * 1024, allowedMimeTypes: MEDIA_DEFAULTS.allowedMimeTypes });
    expect(orchestrator.document.media?.allowedMimeTypes).toEqual(expect.arrayContaining(['image/jpeg', 'audio/ogg', 'application/pdf']));
    const operator = toldToFunction(synth, 'Operator console');
    expect(operator.environment).toMatchObject({ MEDIA_BUCKET_NAME: bucketName });
    expect(operator.document.media).toEqual(orchestrator.document.media);
  });

  test('the webhook is granted nothing on the bucket and told nothing of it: the inbound path never downloads', () => {
    const synth = synthPipeline(PLANE);
    expect(JSON.stringify(roleStatements(synth, synth.pipeline.webhookFunction.role!))).not.toContain('s3:');
    const webhook = toldToFunction(synth, 'WhatsApp webhook');
    expect(webhook.environment.MEDIA_BUCKET_NAME).toBeUndefined();
    expect(webhook.document.media).toBeUndefined();
  });

  test('the orchestrator puts and gets objects under media/ only; the operator function gets, deletes, puts (the attachments it sends) and lists under media/ only', () => {
    const synth = synthPipeline(PLANE);
    const bucket = synth.pipeline.mediaBucket!;
    const s3Statements = (role: Parameters<typeof roleStatements>[1]) => roleStatements(synth, role).filter((entry) => entry.actions.some((action) => action.startsWith('s3:')));
    expect(s3Statements(synth.pipeline.orchestratorFunction.role!)).toEqual([statement(synth, ['s3:PutObject', 's3:GetObject'], [bucket.arnForObjects('media/*')])]);
    expect(s3Statements(synth.pipeline.operatorFunction!.role!)).toEqual([
      statement(synth, ['s3:GetObject', 's3:DeleteObject', 's3:PutObject'], [bucket.arnForObjects('media/*')]),
      statement(synth, ['s3:ListBucket'], [bucket.bucketArn], { StringLike: { 's3:prefix': 'media/*' } }),
    ]);
  });

  test('with a customer managed key, the functions use it for the bucket only through S3', () => {
    const captured: { key?: kms.Key } = {};
    const synth = synthPipeline(PLANE, (scope) => ({ encryptionKey: (captured.key = new kms.Key(scope, 'Key')) }));
    const viaS3 = { StringEquals: { 'kms:ViaService': { 'Fn::Join': ['', ['s3.', { Ref: 'AWS::Region' }, '.amazonaws.com']] } } };
    for (const role of [synth.pipeline.orchestratorFunction.role!, synth.pipeline.operatorFunction!.role!]) {
      expect(roleStatements(synth, role)).toContainEqual(statement(synth, ['kms:Decrypt', 'kms:GenerateDataKey'], [captured.key!.keyArn], viaS3));
    }
  });

  test('an existing bucket is used as it is: no bucket created, its key granted through S3', () => {
    const stack = new Stack(new App(), 'ExistingBucket');
    const key = new kms.Key(stack, 'BucketKey');
    const existingBucket = new s3.Bucket(stack, 'Media', { encryptionKey: key, encryption: s3.BucketEncryption.KMS, enforceSSL: true });
    const pipeline = new AgentPipeline(stack, 'Pipeline', pipelineProps({ media: { existingBucket } }));
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::S3::Bucket', 1);
    expect(pipeline.mediaBucket).toBe(existingBucket);
    expect(toldToFunction({ stack, template }, 'Turn orchestrator').environment.MEDIA_BUCKET_NAME).toEqual(stack.resolve(existingBucket.bucketName));
    const viaS3 = { StringEquals: { 'kms:ViaService': { 'Fn::Join': ['', ['s3.', { Ref: 'AWS::Region' }, '.amazonaws.com']] } } };
    const synth = { app: stack.node.root as App, stack, pipeline, template };
    expect(roleStatements(synth, pipeline.orchestratorFunction.role!)).toContainEqual(statement(synth, ['kms:Decrypt', 'kms:GenerateDataKey'], [key.keyArn], viaS3));
  });

  test('media.enabled false creates no bucket, grants nothing and tells the functions nothing', () => {
    const synth = synthPipeline({ ...PLANE, media: { enabled: false } });
    synth.template.resourceCountIs('AWS::S3::Bucket', 0);
    expect(synth.pipeline.mediaBucket).toBeUndefined();
    expect(JSON.stringify(synth.template.findResources('AWS::IAM::Policy'))).not.toContain('s3:');
    const orchestrator = toldToFunction(synth, 'Turn orchestrator');
    expect(orchestrator.environment.MEDIA_BUCKET_NAME).toBeUndefined();
    expect(orchestrator.document.media).toBeNull();
  });

  test('maxBytes and allowedMimeTypes reach the orchestrator', () => {
    const synth = synthPipeline({ media: { maxBytes: 5 * 1024 * 1024, allowedMimeTypes: ['image/*', 'application/pdf'] } });
    expect(toldToFunction(synth, 'Turn orchestrator').document.media).toMatchObject({ maxBytes: 5 * 1024 * 1024, allowedMimeTypes: ['image/*', 'application/pdf'] });
  });

  test.each<[string, AgentPipelineProps['media'], RegExp]>([
    ['a size above Meta’s largest document', { maxBytes: 101 * 1024 * 1024 }, /media\.maxBytes must be a whole number of bytes from 1 to 104857600/],
    ['a size of zero', { maxBytes: 0 }, /media\.maxBytes must be a whole number/],
    ['no type at all', { allowedMimeTypes: [] }, /media\.allowedMimeTypes is empty/],
    ['something that is not a MIME type', { allowedMimeTypes: ['pdf'] }, /media\.allowedMimeTypes has 'pdf', which is not a MIME type/],
    ['an existing bucket with media off', { enabled: false, existingBucket: s3.Bucket.fromBucketName(new Stack(), 'B', 'customer-media') }, /media\.existingBucket is set but media\.enabled is false/],
  ])('refuses %s with a message that says what to change', (_, media, message) => {
    expect(() => synthPipeline({ media })).toThrow(message);
  });
});

describe('voice note transcription', () => {
  const JOBS = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':transcribe:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':transcription-job/voice-*']] };
  const transcribeStatements = (synth: ReturnType<typeof synthPipeline>) =>
    Object.values(synth.template.findResources('AWS::IAM::Policy')).flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]).filter((entry) => JSON.stringify(entry.Action).includes('transcribe:'));

  test('is off by default: no Transcribe grant, nothing told to the orchestrator', () => {
    const synth = synthPipeline(PLANE);
    expect(transcribeStatements(synth)).toEqual([]);
    expect(toldToFunction(synth, 'Turn orchestrator').document.media?.transcription).toBeNull();
  });

  test('on, the orchestrator alone starts jobs and reads them; it, the idle sweep and the erasures delete only the pipeline’s own (voice-*)', () => {
    const synth = synthPipeline({ ...PLANE, media: { transcription: { languageCode: 'pt-BR' } } });
    const orchestrator = roleStatements(synth, synth.pipeline.orchestratorFunction.role!);
    // StartTranscriptionJob and ListTranscriptionJobs have no resource type in the Service Authorization Reference: only `*` grants them.
    expect(orchestrator).toContainEqual(statement(synth, ['transcribe:StartTranscriptionJob'], ['*']));
    expect(orchestrator).toContainEqual(statement(synth, ['transcribe:GetTranscriptionJob', 'transcribe:DeleteTranscriptionJob'], [JOBS]));
    for (const role of [synth.pipeline.idleSweeperFunction.role!, synth.pipeline.operatorFunction!.role!]) {
      const statements = roleStatements(synth, role);
      expect(statements).toContainEqual(statement(synth, ['transcribe:ListTranscriptionJobs'], ['*']));
      expect(statements).toContainEqual(statement(synth, ['transcribe:DeleteTranscriptionJob'], [JOBS]));
    }
    // Nobody else: the orchestrator's two statements, and the sweeper's and the operator function's two each.
    expect(transcribeStatements(synth)).toHaveLength(6);
    expect(toldToFunction(synth, 'Turn orchestrator').document.media?.transcription).toEqual({ languageCode: 'pt-BR', maxWaitMs: 30_000, pollIntervalMs: MEDIA_DEFAULTS.transcriptionPollIntervalMs });
  });

  test('on, the idle sweeper is told the turn budget (the queue’s receives × its visibility timeout), after which it deletes ended jobs; the erase command finds it is on in the outputs', () => {
    const synth = synthPipeline({ ...PLANE, maxReceiveCount: 4, visibilityTimeout: Duration.seconds(150), media: { transcription: {} } });
    expect(toldToFunction(synth, 'Idle sweeper').document.transcriptionJobsSweep).toEqual({ afterMs: 600_000 });
    expect(synth.template.findOutputs('*')).toMatchObject({ PipelineTranscriptionJobPrefix: { Value: 'voice-' } });
    const off = synthPipeline(PLANE);
    expect(toldToFunction(off, 'Idle sweeper').document.transcriptionJobsSweep).toBeNull();
    expect(Object.keys(off.template.findOutputs('*'))).not.toContain('PipelineTranscriptionJobPrefix');
  });

  test.each<[string, Partial<AgentPipelineProps>, string, number]>([
    ['the pipeline’s locale', { locale: Locale.ES }, 'es-US', 30_000],
    ['pt-BR without a locale, and half of a short orchestrator timeout', { orchestratorTimeout: Duration.seconds(40) }, 'pt-BR', 20_000],
  ])('languageCode and maxWait default to %s', (_, props, languageCode, maxWaitMs) => {
    const synth = synthPipeline({ ...props, media: { transcription: {} } });
    expect(toldToFunction(synth, 'Turn orchestrator').document.media?.transcription).toMatchObject({ languageCode, maxWaitMs });
  });

  test.each<[string, Partial<AgentPipelineProps>, RegExp]>([
    ['media off', { media: { enabled: false, transcription: {} } }, /media\.transcription is set but media\.enabled is false/],
    ['a wait longer than half the orchestrator timeout', { media: { transcription: { maxWait: Duration.seconds(50) } } }, /media\.transcription\.maxWait \(50 s\) must be a whole number of seconds from 1 to half of orchestratorTimeout \(45 s\).*raise orchestratorTimeout/],
    ['a wait under a second', { media: { transcription: { maxWait: Duration.millis(500) } } }, /media\.transcription\.maxWait \(0\.5 s\) must be a whole number of seconds/],
    ['a language written as a locale', { media: { transcription: { languageCode: 'pt_BR' } } }, /media\.transcription\.languageCode 'pt_BR' is not a language code as Amazon Transcribe names it: write it as 'pt-BR'/],
  ])('refuses %s with a message that says what to change', (_, props, message) => {
    expect(() => synthPipeline(props)).toThrow(message);
  });
});
