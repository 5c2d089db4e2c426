import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type DeploymentPermissions, deploymentPermissions } from './deployment-permissions';
import type { SynthesizedDeployment } from './deployment-variants';

const ROOT = join(__dirname, '..', '..', '..');

/**
 * The synthesized variants, each synthesized once per run on first demand by one child process
 * (synthesize-deployment.ts), so a synthesis never blocks the proxy's event loop.
 */
export class DeploymentSource {
  private child?: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<string, { resolve: (deployment: DeploymentPermissions) => void; reject: (error: Error) => void }>();
  private readonly deployments = new Map<string, Promise<DeploymentPermissions>>();

  /** The variant's roles and resources; the first call for a variant synthesizes it. */
  get(variant: string): Promise<DeploymentPermissions> {
    let deployment = this.deployments.get(variant);
    if (deployment === undefined) {
      deployment = new Promise((resolve, reject) => this.pending.set(variant, { resolve, reject }));
      this.deployments.set(variant, deployment);
      this.synthesizer().stdin.write(`${variant}\n`);
    }
    return deployment;
  }

  /** Stops the synthesizer (by its PID, through the handle that started it). */
  close(): void {
    this.child?.kill();
    this.child = undefined;
  }

  private synthesizer(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(__dirname, 'synthesize-deployment.ts')], { cwd: ROOT, env: process.env });
    let errors = '';
    child.stderr.on('data', (chunk) => (errors = `${errors}${chunk}`.slice(-4_000)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const answer = JSON.parse(line) as SynthesizedDeployment & { error?: string };
      const waiting = this.pending.get(answer.variant);
      this.pending.delete(answer.variant);
      if (answer.error !== undefined) waiting?.reject(new Error(`Synthesizing ${answer.variant} failed: ${answer.error}`));
      else waiting?.resolve(deploymentPermissions(answer));
    });
    child.on('exit', (code) => {
      for (const [variant, waiting] of this.pending) waiting.reject(new Error(`The synthesizer exited (${code}) before ${variant}: ${errors}`));
      this.pending.clear();
      if (this.child === child) this.child = undefined;
    });
    child.unref();
    this.child = child;
    return child;
  }
}
