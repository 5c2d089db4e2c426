export * from './agent-pipeline';
export * from './agent-backend';
