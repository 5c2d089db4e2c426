/** One DynamoDB Local and one SQS emulator per run (global setup); tests isolate by fresh tables/queues. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // lib/ holds jsii's compiled .js beside the sources: resolve the .ts first so tests never run stale output.
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json', 'node'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json', diagnostics: false }],
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  maxWorkers: 2,
  testTimeout: 60_000,
  // The AWS SDK prints a NodeVersionSupportWarning on Node 20; it is noise here.
  setupFiles: ['<rootDir>/test/support/quiet-sdk-warnings.ts'],
};
