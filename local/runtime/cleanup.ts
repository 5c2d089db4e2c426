import { LocalServerError, type LocalServer } from '../servers/local-servers';

/** Undo actions run in reverse order of registration, each once, failures collected. */
export class Cleanup {
  readonly env = new ProcessEnvOverrides();
  readonly pids: number[] = [];
  private readonly actions: Array<() => Promise<void>> = [];
  private readonly starting: Promise<unknown>[] = [];

  add(action: () => Promise<void>): void {
    this.actions.push(action);
  }

  async server(starting: Promise<LocalServer>): Promise<string> {
    this.starting.push(starting);
    const server = await starting;
    this.pids.push(server.pid);
    this.add(() => server.stop());
    return server.endpoint;
  }

  async run(): Promise<void> {
    // A server still starting when another failed must be registered before anything is undone.
    await Promise.allSettled(this.starting.splice(0));
    const failures: unknown[] = [];
    for (const action of this.actions.splice(0).reverse()) {
      try {
        await action();
      } catch (error) {
        failures.push(error);
      }
    }
    this.env.restore();
    if (failures.length > 0) throw new AggregateError(failures, 'The local pipeline did not stop cleanly');
  }
}

/**
 * The handlers build their AWS SDK clients from the environment (as in Lambda), so the local
 * endpoints must be in `process.env` before they run. Values this pipeline set are restored on stop.
 */
class ProcessEnvOverrides {
  private readonly previous = new Map<string, string | undefined>();

  /** A process can serve only one set of local servers: the SDK clients are process-wide. */
  bindSdkEndpoints(endpoints: Record<string, string>): void {
    for (const [name, endpoint] of Object.entries(endpoints)) {
      const current = process.env[name];
      if (current !== undefined && current !== endpoint) {
        throw new LocalServerError(
          `${name} already points the AWS SDK at ${current}, but this pipeline uses ${endpoint}. ` +
            `Pass that endpoint in the options to reuse the server, or unset ${name}.`,
        );
      }
    }
    this.setIfAbsent(endpoints);
  }

  setIfAbsent(values: Record<string, string>): void {
    for (const [name, value] of Object.entries(values)) {
      if (process.env[name] !== undefined) continue;
      this.previous.set(name, undefined);
      process.env[name] = value;
    }
  }

  restore(): void {
    for (const [name, value] of this.previous) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    this.previous.clear();
  }
}
