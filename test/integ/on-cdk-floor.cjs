// Preloaded by the integration test apps (`npm run integ`): every `aws-cdk-lib` import — the
// construct's, integ-tests-alpha's — resolves to the lowest release the peer dependency allows,
// installed as `aws-cdk-lib-min`. The snapshots and a deploy then prove the floor, and integ-runner
// reads the cloud assembly such a release writes.
const Module = require('node:module');
const path = require('node:path');

const floor = path.dirname(require.resolve('aws-cdk-lib-min/package.json'));
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveOnFloor(request, ...rest) {
  const onFloor = request === 'aws-cdk-lib' || request.startsWith('aws-cdk-lib/') ? floor + request.slice('aws-cdk-lib'.length) : request;
  return resolveFilename.call(this, onFloor, ...rest);
};
