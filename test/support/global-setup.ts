import { LocalServer, startDynamoDbLocal, startSqsEmulator } from '../../local/servers/local-servers';

declare global {
  // eslint-disable-next-line no-var
  var __localServers: LocalServer[] | undefined;
}

/** Starts the shared DynamoDB Local and SQS emulator once per jest run; workers inherit the env. */
export default async function globalSetup(): Promise<void> {
  const [dynamodb, sqs] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
  globalThis.__localServers = [dynamodb, sqs];
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: dynamodb.endpoint,
    AWS_ENDPOINT_URL_SQS: sqs.endpoint,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
}
