// Preloaded into a process that must run on another aws-cdk-lib release than the repository's:
// every `aws-cdk-lib`, `constructs`, `cdk-nag` and `cdk-nag-v2` import (the construct's, cdk-nag's,
// the test's) resolves into CDK_RELEASE_NODE_MODULES, where that release is installed with its
// constructs and cdk-nag (test/support/newest-aws-cdk-lib.ts installs them), so the process holds one
// copy of each, as a consumer's app does.
const Module = require('node:module');
const path = require('node:path');

const release = process.env.CDK_RELEASE_NODE_MODULES;
if (!release) throw new Error('on-cdk-release.cjs needs CDK_RELEASE_NODE_MODULES: the node_modules holding the release');
const REDIRECTED = ['aws-cdk-lib', 'constructs', 'cdk-nag', 'cdk-nag-v2'];
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveInRelease(request, ...rest) {
  const name = REDIRECTED.find((candidate) => request === candidate || request.startsWith(`${candidate}/`));
  return resolveFilename.call(this, name === undefined ? request : path.join(release, request), ...rest);
};
