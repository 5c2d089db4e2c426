// Stands in for `semver` in the Lambda bundles only (see bundle-lambdas.mjs). The bundles reach it
// through the X-Ray SDK, whose only uses are `semver.gte` on Node's own version (cls-hooked) and on
// the AWS SDK v2's version (a patcher the functions never call): ~30 KiB of range parsing carried
// for one comparison of release versions.
'use strict';

function parts(version) {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(String(version).trim());
  if (!match) throw new TypeError(`Invalid Version: ${version}`);
  return match.slice(1).map(Number);
}

function gte(a, b) {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return true;
}

module.exports = { gte };
