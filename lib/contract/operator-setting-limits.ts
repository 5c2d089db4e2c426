/**
 * Bounds of the admin's settings the console edits, checked by the construct, the operator API and
 * the console's forms alike. Imports nothing (a type aside): the console bundles this module.
 * Internal: not part of the jsii API.
 */
import type { HandoffTexts } from './handoff-texts';

/** The texts of the `handoffTexts` prop and the admin's `handoff_texts` setting, in the order the construct documents them. */
export const HANDOFF_TEXT_NAMES = ['noOperatorAvailable', 'customerRenotify', 'fallback', 'operatorNotification'] as const satisfies readonly (keyof HandoffTexts)[];

/**
 * The longest system prompt, in characters: the construct's `systemPrompt` and the console's prompt
 * edits alike, so a deployed prompt can always be edited back in the console. It leaves room for
 * multi-byte characters and JSON escapes in the operator API's 64 KiB body, is stored as a prompt
 * resource version far below DynamoDB's 400 KB item, and is about 10,000 tokens: a long cached
 * prefix, with most of the model's context left for the conversation.
 */
export const SYSTEM_PROMPT_MAX_CHARACTERS = 40_000;

/** The reason an admin gives to publish a prompt the gate refuses (docs/EVALUATION.md), kept in the audit. */
export const GATE_OVERRIDE_REASON_MAX_CHARACTERS = 500;

/** The longest handoff text the construct and the admin's `handoff_texts` setting accept. */
export const HANDOFF_TEXT_MAX_CHARACTERS = 1000;

/** The admin's `availability_ttl_hours` setting: the hours an operator stays available without renewing it. */
export const AVAILABILITY_TTL_BOUNDS = { min: 1, max: 168, byDefault: 24 } as const;
