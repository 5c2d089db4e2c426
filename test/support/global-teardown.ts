export default async function globalTeardown(): Promise<void> {
  await Promise.all((globalThis.__localServers ?? []).map((server) => server.stop()));
}
