// The package as a consumer gets it: `npm pack` of this repository (after `npm run build`) unpacked
// into a fresh app's node_modules, beside links to the peer dependencies, so no test reaches a registry.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export const repoRoot = path.resolve(__dirname, '..', '..');
export const packageManifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
export const packageName: string = packageManifest.name;

export interface PackedPackage {
  readonly tarball: string;
  /** The tarball's files, relative to the package root. */
  readonly files: string[];
}

/** Packs the built repository into `destination`; fails with what to run when the build is missing. */
export function packPackage(destination: string): PackedPackage {
  for (const built of ['.jsii', 'lib/index.js', 'assets/webhook/index.js', 'assets/orchestrator/index.js']) {
    if (!fs.existsSync(path.join(repoRoot, built))) {
      throw new Error(`${built} is missing: run \`npm run build\` before this test (\`npm test\` does).`);
    }
  }
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', destination], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
  );
  return { tarball: path.join(destination, packed.filename), files: packed.files.map((file: { path: string }) => file.path) };
}

/**
 * A fresh app in `appDir` with the unpacked tarball and the peer dependencies: `aws-cdk-lib` and
 * `constructs` from `nodeModules` (default this repository's; by default under those names, or as
 * `cdkLib` and `constructs`, such as the `-min` floor aliases), plus `extraDependencies` from there or
 * this repository. Returns the installed package's folder.
 */
export function installPackedPackage(
  tarball: string,
  appDir: string,
  options: { readonly nodeModules?: string; readonly cdkLib?: string; readonly constructs?: string; readonly extraDependencies?: readonly string[] } = {},
): string {
  const modules = path.join(appDir, 'node_modules');
  const installed = path.join(modules, packageName);
  fs.mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  const from = options.nodeModules ?? path.join(repoRoot, 'node_modules');
  linkInstalledPackage('aws-cdk-lib', modules, from, path.join(from, options.cdkLib ?? 'aws-cdk-lib'));
  linkInstalledPackage('constructs', modules, from, path.join(from, options.constructs ?? 'constructs'));
  for (const dependency of options.extraDependencies ?? []) {
    linkInstalledPackage(dependency, modules, from);
  }
  return installed;
}

/**
 * Links the installed package at `source` (default: the copy of `name` in `from`, else in this
 * repository) into `modules` as `name`, and, like an install would, the dependencies it does not
 * bundle, taken from its own nested node_modules first, then from `from`, then from this repository.
 */
function linkInstalledPackage(name: string, modules: string, from: string, source?: string): void {
  const target = path.join(modules, name);
  if (fs.existsSync(target)) {
    return;
  }
  const found = source ?? [path.join(from, name), path.join(repoRoot, 'node_modules', name)].find((candidate) => fs.existsSync(candidate))!;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.symlinkSync(found, target, 'dir');
  const dependencyManifest = JSON.parse(fs.readFileSync(path.join(found, 'package.json'), 'utf8'));
  const bundled: string[] = dependencyManifest.bundleDependencies ?? dependencyManifest.bundledDependencies ?? [];
  for (const dependency of Object.keys(dependencyManifest.dependencies ?? {}).filter((d) => !bundled.includes(d))) {
    const nested = path.join(found, 'node_modules', dependency);
    linkInstalledPackage(dependency, modules, from, fs.existsSync(nested) ? nested : undefined);
  }
}
