/**
 * Every action the admin audit records (docs/OPERATOR-API.md, "Lists"): the runtime records only
 * these (`AuditedAction.action`), and the console words each one in every language
 * (`audit.action.<code>` in console/src/dictionaries/; a test fails on a code without its words).
 * Internal: not part of the jsii API.
 */
export const AUDIT_ACTIONS = [
  'config.update',
  'conversation.attachment',
  'conversation.claim',
  'conversation.close',
  'conversation.note',
  'conversation.release',
  'conversation.reply',
  'conversation.scenario',
  'conversation.take_over',
  'conversation.template',
  'crm.resolve',
  'crm.retry',
  'customer.erase',
  'customer.export',
  'dead_letters.redrive',
  'evaluation.start',
  'operator.access_ended',
  'operator.availability',
  'operator.sign_in',
  'operator.sign_out',
  'prompt.draft',
  'prompt.publish',
  'prompt.rollback',
  'prompt.update',
  'quick_reply.remove',
  'quick_reply.save',
  'scenario.remove',
  'scenario.save',
  'templates.sync',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];
