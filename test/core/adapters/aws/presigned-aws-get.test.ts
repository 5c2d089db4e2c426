// The presigned links the operator opens attachments with, against AWS's own example of a
// query-signed URL (Amazon S3 API reference, "Authenticating Requests: Using Query Parameters
// (AWS Signature Version 4)"): the same request, date and credentials give the same URL, byte for byte.
import { type AwsService, presignedAwsGet } from '../../../../lambda/core/adapters/aws/signed-aws-post';

const S3: AwsService = { endpointPrefix: 's3', signingName: 's3', endpointVariable: 'AWS_ENDPOINT_URL_S3', uriEscapePath: false };
const EXAMPLE_CREDENTIALS = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };

afterEach(() => jest.useRealTimers());

test('AWS’s documented presigned GET of examplebucket/test.txt, signed 20130524T000000Z for 86400 s', async () => {
  jest.useFakeTimers({ now: new Date('2013-05-24T00:00:00Z'), doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  const presign = presignedAwsGet(S3, { region: 'us-east-1', endpoint: 'https://examplebucket.s3.amazonaws.com', credentials: async () => EXAMPLE_CREDENTIALS, env: {} });
  expect(await presign('/test.txt', 86_400)).toBe(
    'https://examplebucket.s3.amazonaws.com/test.txt' +
      '?X-Amz-Algorithm=AWS4-HMAC-SHA256' +
      '&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request' +
      '&X-Amz-Date=20130524T000000Z' +
      '&X-Amz-Expires=86400' +
      '&X-Amz-SignedHeaders=host' +
      '&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
  );
});

test('temporary credentials put their session token in the signed query, as S3 expects of a link', async () => {
  const presign = presignedAwsGet(S3, { region: 'us-east-1', endpoint: 'https://examplebucket.s3.amazonaws.com', credentials: async () => ({ ...EXAMPLE_CREDENTIALS, sessionToken: 'session/token=' }), env: {} });
  const link = new URL(await presign('/test.txt', 300));
  expect(link.searchParams.get('X-Amz-Security-Token')).toBe('session/token=');
  expect(link.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
  expect([...link.searchParams.keys()].filter((name) => name.toLowerCase() === 'x-amz-content-sha256')).toEqual([]);
});
