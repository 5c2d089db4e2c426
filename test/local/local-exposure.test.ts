// What `npm start` and the suites expose beyond the machine: nothing. The servers the project writes
// listen on loopback only, and so does DynamoDB Local, which has no bind option of its own (its
// launcher, local/servers/LoopbackDynamoDbLocal.java, binds it).
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { FakeGraphApi } from '../../local/fake-whatsapp/fake-graph-api';
import { startFunctionUrlServer } from '../../local/runtime/function-url-server';
import { LOCAL_SERVER_ENDPOINT_VARIABLES } from '../support/permissions/function-principals';

/** An address of this machine that is not loopback: what another host on the network would dial. */
const outwardAddress = Object.values(networkInterfaces())
  .flat()
  .find((address) => address !== undefined && address.family === 'IPv4' && !address.internal)?.address;

/** `true` when a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

const portOf = (endpoint: string) => Number(new URL(endpoint).port);

(outwardAddress === undefined ? describe.skip : describe)(`reached from the network (${outwardAddress})`, () => {
  test('DynamoDB Local, the SQS emulator, the fake Graph API, the local Function URL and the tests’ permission proxy refuse it; on loopback they answer', async () => {
    const fake = await FakeGraphApi.start({ accessToken: 'token' });
    const functionUrl = await startFunctionUrlServer(async () => ({ statusCode: 200 }));
    try {
      const proxy = [process.env.AWS_ENDPOINT_URL_DYNAMODB!, process.env.AWS_ENDPOINT_URL_SQS!];
      const servers = [process.env[LOCAL_SERVER_ENDPOINT_VARIABLES.dynamoDb]!, process.env[LOCAL_SERVER_ENDPOINT_VARIABLES.sqs]!];
      for (const endpoint of [...servers, fake.baseUrl, functionUrl.url, ...proxy]) {
        expect(await accepts('127.0.0.1', portOf(endpoint))).toBe(true);
        expect(await accepts(outwardAddress!, portOf(endpoint))).toBe(false);
      }
    } finally {
      await fake.close();
      await functionUrl.close();
    }
  });
});
