// Packages every jsii target this machine can build, after `npm run build`:
//   js      npm tarball                                       → dist/js/*.tgz
//   python  jsii-pacmak --code-only, then `pip wheel --no-build-isolation` with a local Python
//           that already has setuptools and wheel (pacmak's own isolated build asks PyPI for a
//           pinned setuptools)                                → dist/python/*.whl
//   java    jsii-pacmak build when Maven is installed and can resolve what the build needs
//   dotnet  jsii-pacmak build when the .NET SDK is installed
//   go      jsii-pacmak build when Go is installed, from the packed package beside the lowest
//           releases the peer dependencies allow (see stageOnPeerFloors)
// A target whose toolchain is missing or whose build fails still gets its generated sources
// (dist/code/<target>/), so the bindings can be reviewed; the summary says what was built, what
// was generated only, and why. Before any jsii-pacmak run, `jsii-rosetta extract --strict`
// translates the README and the `@example`s into a tablet (dist/rosetta/tablet.json) that pacmak
// takes every target's docs from: a snippet that does not compile fails the packaging instead of
// reaching Python, Java, .NET or Go users as TypeScript.
//
// Usage: node scripts/package-targets.mjs [--targets js,python,...] [--outdir dist] [--json]
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
const ALL_TARGETS = ['js', 'python', 'java', 'dotnet', 'go'];
/** The command whose presence means the target's toolchain is installed. */
const TOOLCHAIN_COMMANDS = { java: 'mvn', dotnet: 'dotnet', go: 'go' };
/** The package staged on the peer floors for the Go target, made once (stageOnPeerFloors). */
let stagedOnPeerFloors;
/** Interpreters to try for the wheel, in order; the system one often has setuptools and wheel when a user-installed one lacks them. */
const PYTHON_CANDIDATES = [process.env.PYTHON, 'python3', '/usr/bin/python3', 'python'].filter(Boolean);

const options = parseArguments(process.argv.slice(2));
const outdir = path.resolve(repoRoot, options.outdir);
const codeDir = path.join(outdir, 'code');
const rosettaDir = path.join(outdir, 'rosetta');
/** The peer dependencies (and Node's types) the snippets compile against, as a consumer's app has them. */
const SNIPPET_DEPENDENCIES = ['aws-cdk-lib', 'constructs', '@types/node'];

if (!fs.existsSync(path.join(repoRoot, '.jsii'))) {
  fail('.jsii is missing: run `npm run build` first.');
}

/** The snippets' translations, made before the first jsii-pacmak run. */
let snippets;
const results = options.targets.map((target) => {
  fs.rmSync(path.join(outdir, target), { recursive: true, force: true });
  fs.rmSync(path.join(codeDir, target), { recursive: true, force: true });
  const started = Date.now();
  const result = packageTarget(target);
  return { target, ...result, seconds: Math.round((Date.now() - started) / 100) / 10 };
});

if (options.json) {
  console.log(JSON.stringify(results, null, 2));
} else {
  printSummary(results);
}
if (results.some((result) => result.status === 'failed')) {
  process.exitCode = 1;
}

/** @returns {{status: 'built' | 'code-only' | 'failed', artifacts: string[], reason?: string}} */
function packageTarget(target) {
  switch (target) {
    case 'js':
      return packageJavaScript();
    case 'python':
      return packagePython();
    default:
      return packageWithToolchain(target);
  }
}

function packageJavaScript() {
  const destination = path.join(outdir, 'js');
  fs.mkdirSync(destination, { recursive: true });
  const packed = run('npm', ['pack', '--json', '--pack-destination', destination]);
  if (!packed.ok) {
    return { status: 'failed', artifacts: [], reason: packed.reason };
  }
  return { status: 'built', artifacts: listFiles(destination) };
}

function packagePython() {
  const generated = generateCode('python');
  if (!generated.ok) {
    return { status: 'failed', artifacts: [], reason: generated.reason };
  }
  const sources = path.join(codeDir, 'python');
  const python = PYTHON_CANDIDATES.find((candidate) => run(candidate, ['-c', 'import setuptools, wheel, pip']).ok);
  if (!python) {
    return {
      status: 'code-only',
      artifacts: [sources],
      reason: `no Python with pip, setuptools and wheel among ${PYTHON_CANDIDATES.join(', ')} (set PYTHON, or install python3-pip python3-setuptools python3-wheel)`,
    };
  }
  const destination = path.join(outdir, 'python');
  const wheel = run(python, ['-m', 'pip', 'wheel', '--no-build-isolation', '--no-deps', '--no-index', '--wheel-dir', destination, sources]);
  if (!wheel.ok) {
    return { status: 'code-only', artifacts: [sources], reason: `pip wheel with ${python} failed: ${wheel.reason}` };
  }
  return { status: 'built', artifacts: listFiles(destination), reason: `wheel built by ${python}` };
}

function packageWithToolchain(target) {
  const command = TOOLCHAIN_COMMANDS[target];
  let reason = `\`${command}\` is not installed`;
  if (commandExists(command)) {
    const built = pacmak([...projectRootOf(target), '--targets', target, '--outdir', outdir]);
    if (built.ok) {
      return { status: 'built', artifacts: listFiles(path.join(outdir, target)) };
    }
    reason = `the ${target} build failed: ${built.reason}`;
  }
  const generated = generateCode(target);
  if (!generated.ok) {
    return { status: 'failed', artifacts: [], reason: `${reason}; code generation failed too: ${generated.reason}` };
  }
  return { status: 'code-only', artifacts: [path.join(codeDir, target)], reason };
}

function generateCode(target) {
  return pacmak([...projectRootOf(target), '--code-only', '--targets', target, '--outdir', codeDir]);
}

/** The package jsii-pacmak reads for `target`: this repository, or for Go the package staged on the peer floors. */
function projectRootOf(target) {
  return target === 'go' ? [stagedOnPeerFloors ??= stageOnPeerFloors()] : [];
}

/**
 * A go.mod requires exact versions, and jsii-pacmak takes them from the installed dependencies,
 * not from the peer ranges (Python, Java and .NET get the ranges): built here, the Go module would
 * require the newest aws-cdk-lib and constructs, the dev dependencies. So the Go target is made
 * from the packed package with each peer dependency resolved to its floor, installed as the
 * `<name>-min` alias dev dependency, and go.mod requires the floors.
 */
function stageOnPeerFloors() {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'package-targets-floors-'));
  process.on('exit', () => fs.rmSync(stage, { recursive: true, force: true }));
  const packed = spawnSync('npm', ['pack', '--json', '--pack-destination', stage], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (packed.status !== 0) {
    fail(`npm pack failed: ${packed.stderr}`);
  }
  const packageDir = path.join(stage, 'package');
  fs.mkdirSync(packageDir);
  spawnSync('tar', ['-xzf', path.join(stage, JSON.parse(packed.stdout)[0].filename), '-C', packageDir, '--strip-components=1']);
  const modules = path.join(packageDir, 'node_modules');
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
  const peers = Object.keys(manifest.peerDependencies ?? {});
  for (const peer of peers) {
    const floor = path.join(repoRoot, 'node_modules', `${peer}-min`);
    if (!fs.existsSync(floor)) {
      fail(`the peer dependency ${peer} has no floor installed: add the dev dependency "${peer}-min": "npm:${peer}@<the lowest version its range allows>"`);
    }
    const floorManifest = JSON.parse(fs.readFileSync(path.join(floor, 'package.json'), 'utf8'));
    const bundled = floorManifest.bundleDependencies ?? floorManifest.bundledDependencies ?? [];
    const dependencies = Object.keys(floorManifest.dependencies ?? {}).filter((name) => !bundled.includes(name));
    const staged = path.join(modules, peer);
    fs.mkdirSync(path.dirname(staged), { recursive: true });
    if (dependencies.length === 0) {
      fs.symlinkSync(floor, staged, 'dir');
      continue;
    }
    // Its files copied, its folders linked: pacmak finds a package from the real path of its entry
    // point and loads an assembly only from inside the package, so the floor's own dependencies are
    // then looked up here, and a peer of it (aws-cdk-lib's constructs) resolves to its floor too.
    if (path.dirname(floorManifest.main ?? 'index.js') !== '.') {
      fail(`the entry point of ${peer}-min, ${floorManifest.main}, is not at its root: extend stageOnPeerFloors to copy it`);
    }
    fs.mkdirSync(staged);
    for (const entry of fs.readdirSync(floor, { withFileTypes: true })) {
      const [source, target] = [path.join(floor, entry.name), path.join(staged, entry.name)];
      if (entry.isDirectory()) fs.symlinkSync(source, target, 'dir');
      else fs.copyFileSync(source, target);
    }
    for (const dependency of dependencies.filter((name) => !peers.includes(name))) {
      const link = path.join(modules, dependency);
      if (!fs.existsSync(link)) {
        fs.mkdirSync(path.dirname(link), { recursive: true });
        fs.symlinkSync(path.dirname(createRequire(path.join(floor, 'package.json')).resolve(`${dependency}/package.json`)), link, 'dir');
      }
    }
  }
  return packageDir;
}

/** jsii-pacmak with the snippets' translations; once the translation failed, every pacmak target fails with its reason. */
function pacmak(args) {
  snippets ??= translateSnippets();
  if (!snippets.ok) {
    return { ok: false, reason: `jsii-rosetta extract --strict failed: ${snippets.reason}` };
  }
  return run('npx', ['jsii-pacmak', ...args, '--rosetta-tablet', snippets.tablet, '--rosetta-unknown-snippets', 'fail']);
}

/**
 * Translates every snippet of the assembly in a folder where the package and its peer dependencies
 * resolve as in a consumer's app (the snippets import 'cdk-whatsapp-agent-pipeline').
 */
function translateSnippets() {
  fs.rmSync(rosettaDir, { recursive: true, force: true });
  const modules = path.join(rosettaDir, 'node_modules');
  for (const [name, source] of [[manifest.name, repoRoot], ...SNIPPET_DEPENDENCIES.map((name) => [name, path.join(repoRoot, 'node_modules', name)])]) {
    fs.mkdirSync(path.dirname(path.join(modules, name)), { recursive: true });
    fs.symlinkSync(source, path.join(modules, name), 'dir');
  }
  const tablet = path.join(rosettaDir, 'tablet.json');
  const extracted = run('npx', ['jsii-rosetta', 'extract', '--strict', '--directory', rosettaDir, '--cache-to', tablet, path.join(repoRoot, '.jsii')]);
  return extracted.ok ? { ok: true, tablet } : extracted;
}

function commandExists(command) {
  return run('sh', ['-c', `command -v ${command}`]).ok;
}

/** Runs a command in the repository; on failure the reason is the last meaningful line of its output. */
function run(command, args) {
  const child = spawnSync(command, args, {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION: process.versions.node.split('.')[0] },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (child.status === 0) {
    return { ok: true };
  }
  const output = `${child.stdout ?? ''}\n${child.stderr ?? ''}`;
  const lines = output
    .split('\n')
    // jsii's Node end-of-life banner, stack frames and blank lines say nothing about the failure.
    .map((line) => line.replace(/\x1b\[[0-9;]*m/g, '').replace(/^#STD(OUT|ERR)> /, '').trim())
    .filter((line) => line && !line.startsWith('!!') && !/^at /.test(line));
  // Maven's first substantial [ERROR] line names the cause at its end (e.g. an unknown host).
  const mavenError = lines.find((line) => /^\[ERROR\] \S/.test(line) && !/^\[ERROR\] (To see|Re-run|For more|\[Help)/.test(line));
  const errorLine = mavenError ?? lines.find((line) => /\berror\b/i.test(line)) ?? lines.at(-1) ?? child.error?.message ?? `exit code ${child.status}`;
  return { ok: false, reason: errorLine.length > 300 ? `…${errorLine.slice(-300)}` : errorLine };
}

function listFiles(directory) {
  if (!fs.existsSync(directory)) {
    return [];
  }
  return fs.readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name))
    .filter((file) => /\.(tgz|whl|nupkg|jar|pom)$/.test(file) || file.endsWith('go.mod'));
}

function printSummary(results) {
  for (const { target, status, artifacts, reason, seconds } of results) {
    console.log(`${target.padEnd(7)} ${status.padEnd(9)} ${String(seconds).padStart(5)} s${reason ? `  (${reason})` : ''}`);
    for (const artifact of artifacts) {
      const size = fs.statSync(artifact).isFile() ? ` ${Math.round(fs.statSync(artifact).size / 1024)} KB` : '';
      console.log(`          ${path.relative(repoRoot, artifact)}${size}`);
    }
  }
}

function parseArguments(argv) {
  const parsed = { targets: ALL_TARGETS, outdir: 'dist', json: false };
  for (let i = 0; i < argv.length; i++) {
    switch (argv[i]) {
      case '--targets':
        parsed.targets = argv[++i].split(',');
        break;
      case '--outdir':
        parsed.outdir = argv[++i];
        break;
      case '--json':
        parsed.json = true;
        break;
      default:
        fail(`unknown argument ${argv[i]}; usage: package-targets.mjs [--targets ${ALL_TARGETS.join(',')}] [--outdir dist] [--json]`);
    }
  }
  const unknown = parsed.targets.filter((target) => !ALL_TARGETS.includes(target));
  if (unknown.length > 0) {
    fail(`unknown target(s) ${unknown.join(', ')}; known: ${ALL_TARGETS.join(', ')}`);
  }
  return parsed;
}

function fail(message) {
  console.error(`package-targets: ${message}`);
  process.exit(1);
}
