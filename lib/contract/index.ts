/**
 * The contract between the construct and the code it deploys: what the construct synthesizes and
 * the runtime relies on, defined once. CDK-free, so the Lambda handlers, the console and the local
 * runtime import it as the construct does. Internal, except `key-layout.ts`, `locale.ts` and `handoff-texts.ts`:
 * the public types that both sides share, exported by the package (lib/index.ts) from here.
 *
 * The operator API's types (`operator-api.ts`, which re-exports the usage report's of
 * `usage-report.ts`) are imported by their own path, with `import type`, by the operator function,
 * the runtime's domain and the console.
 */
export * from './conversation-memory';
export * from './defaults';
export * from './environment';
export * from './handoff-texts';
export * from './key-layout';
export * from './knowledge-base';
export * from './locale';
export * from './locale-presets';
export * from './metrics';
export * from './outputs';
export * from './prompt-caching';
export * from './table';
export * from './whatsapp-secret';
export * from './deployment-options';
export * from './deployment-plan';
export * from './plan-writer';
export * from './settings-document';
