export * from './agent-pipeline';
export * from './agent-pipeline-props';
export * from './agent-backend';
export * from './handoff-texts';
export * from './crm-target';
export * from './whatsapp-channel';
export * from './customer-budget';
export * from './key-layout';
