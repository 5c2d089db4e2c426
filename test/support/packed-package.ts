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
 * A fresh app in `appDir` with the unpacked tarball and the peer dependencies: this repository's
 * `aws-cdk-lib` and `constructs` (or the releases installed as `cdkLib` and `constructs`, such as
 * the `-min` floor aliases), plus `extraDependencies` of this repository's node_modules. Returns the
 * installed package's folder.
 */
export function installPackedPackage(
  tarball: string,
  appDir: string,
  options: { readonly cdkLib?: string; readonly constructs?: string; readonly extraDependencies?: readonly string[] } = {},
): string {
  const modules = path.join(appDir, 'node_modules');
  const installed = path.join(modules, packageName);
  fs.mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  linkInstalledPackage('aws-cdk-lib', modules, path.join(repoRoot, 'node_modules', options.cdkLib ?? 'aws-cdk-lib'));
  linkInstalledPackage('constructs', modules, path.join(repoRoot, 'node_modules', options.constructs ?? 'constructs'));
  for (const dependency of options.extraDependencies ?? []) {
    linkInstalledPackage(dependency, modules);
  }
  return installed;
}

/**
 * Links the installed package at `source` (default: this repository's copy of `name`) into
 * `modules` as `name`, and, like an install would, the dependencies it does not bundle, taken from
 * its own nested node_modules first.
 */
function linkInstalledPackage(name: string, modules: string, source = path.join(repoRoot, 'node_modules', name)): void {
  const target = path.join(modules, name);
  if (fs.existsSync(target)) {
    return;
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.symlinkSync(source, target, 'dir');
  const dependencyManifest = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8'));
  const bundled: string[] = dependencyManifest.bundleDependencies ?? dependencyManifest.bundledDependencies ?? [];
  for (const dependency of Object.keys(dependencyManifest.dependencies ?? {}).filter((d) => !bundled.includes(d))) {
    const nested = path.join(source, 'node_modules', dependency);
    linkInstalledPackage(dependency, modules, fs.existsSync(nested) ? nested : undefined);
  }
}
