import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { OperatorSettings } from '../../lambda/composition/deployment-settings';
import { composeOperator, type OperatorPorts } from '../../lambda/composition/operator';
import { hashToken } from '../../lambda/core/domain/operator-auth';
import { newRawToken } from '../../lambda/core/application/operator/operator-sign-in';
import { StaticCredentialsProvider } from '../../lambda/core/adapters/secrets/static-credentials-provider';
import { startFunctionUrlServer, type FunctionUrlServer } from '../../local/runtime/function-url-server';
import type { tableRepositories } from './dynamo-table';
import { ConsoleClient } from './operator-console-client';
import { TEST_CREDENTIALS } from './webhook-events';

process.env.POWERTOOLS_METRICS_DISABLED = 'true';

export { operatorSettings } from './deployment-settings';

/**
 * One warm operator-function instance behind its own local Function URL: each call composes the
 * function anew (its own operators cache, its own sign-in rate limiter), as Lambda runs instances
 * side by side on the same table.
 */
export function startOperatorInstance(settings: OperatorSettings, ports: Partial<OperatorPorts> = {}): Promise<FunctionUrlServer> {
  return startFunctionUrlServer(
    composeOperator(settings, {
      console: { serve: () => undefined },
      credentials: new StaticCredentialsProvider(TEST_CREDENTIALS),
      logger: new Logger({ serviceName: 'operator-test', logLevel: 'SILENT' }),
      metrics: new Metrics({ namespace: 'test', serviceName: 'operator-test' }),
      ...ports,
    }),
  );
}

/** A login link's token for `phone`, as the orchestrator would have sent it over WhatsApp. */
export async function loginToken(repositories: ReturnType<typeof tableRepositories>, phone: string): Promise<string> {
  const token = newRawToken();
  await repositories.operatorAuth.putLoginGrant(hashToken(token), phone);
  return token;
}

/** A console signed in through `instance`. */
export async function signedInConsole(instance: FunctionUrlServer, repositories: ReturnType<typeof tableRepositories>, phone: string): Promise<ConsoleClient> {
  const client = new ConsoleClient(instance.url.replace(/\/$/, ''));
  const answer = await client.signIn(await loginToken(repositories, phone));
  if (answer.status !== 200) throw new Error(`Sign-in of ${phone} failed with ${answer.status}: ${JSON.stringify(answer.body)}`);
  return client;
}

/** The same browser session, talking to another instance (Lambda routes each request to any warm instance). */
export function sameSessionOn(instance: FunctionUrlServer, client: ConsoleClient): ConsoleClient {
  const other = new ConsoleClient(instance.url.replace(/\/$/, ''));
  other.cookie = client.cookie;
  other.csrfToken = client.csrfToken;
  return other;
}
