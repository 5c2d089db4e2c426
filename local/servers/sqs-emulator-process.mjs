// Child-process starter for the SQS emulator: fauxqs is ESM-only, so it cannot be required from
// CommonJS code (jest, ts-jest). Binds to loopback only and reports its port on stdout.
import { buildApp } from 'fauxqs';

// fauxqs names queues `sqs.<region>.localhost:<port>` by default, a host that does not resolve and
// that the AWS SDK then prefers over the configured endpoint. An empty store host makes it use the
// request's own host (127.0.0.1:<port>). The stores are not in the package's export map, so they
// are loaded by file URL next to the resolved entry point.
const entry = import.meta.resolve('fauxqs');
const { SqsStore } = await import(new URL('./sqs/sqsStore.js', entry));
const { SnsStore } = await import(new URL('./sns/snsStore.js', entry));
const { S3Store } = await import(new URL('./s3/s3Store.js', entry));
const sqsStore = new SqsStore();
sqsStore.host = '';

const port = Number(process.argv[2] ?? 0);
const app = buildApp({ logger: false, stores: { sqsStore, snsStore: new SnsStore(), s3Store: new S3Store() } });
await app.listen({ port, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${app.server.address().port}\n`);

const stop = async () => {
  await app.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// Exit with the parent: a test runner or CLI that dies must not leave the emulator behind.
process.on('disconnect', stop);
