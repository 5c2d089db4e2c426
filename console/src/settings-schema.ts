import { AVAILABILITY_TTL_BOUNDS, HANDOFF_TEXT_MAX_CHARACTERS, HANDOFF_TEXT_NAMES } from '../../lib/contract/operator-setting-limits';
import type { MessageKey } from './i18n';

/**
 * The settings an admin edits on the Configuration screen, each as the form it needs: its type,
 * its bounds (the same the API checks) and its words. Operators have their own screen.
 */
export type SettingForm =
  | { readonly kind: 'hours'; readonly key: 'availability_ttl_hours'; readonly heading: MessageKey; readonly help: MessageKey; readonly label: MessageKey; readonly min: number; readonly max: number; readonly byDefault: number }
  | { readonly kind: 'texts'; readonly key: 'handoff_texts'; readonly heading: MessageKey; readonly help: MessageKey; readonly fields: readonly HandoffTextField[]; readonly maxLength: number }
  | { readonly kind: 'template'; readonly key: 'handoff_notice_template'; readonly heading: MessageKey; readonly help: MessageKey; readonly label: MessageKey };

export type HandoffTextName = (typeof HANDOFF_TEXT_NAMES)[number];

export interface HandoffTextField {
  readonly name: HandoffTextName;
  readonly label: MessageKey;
}

export const SETTING_FORMS: readonly SettingForm[] = [
  {
    kind: 'texts',
    key: 'handoff_texts',
    heading: 'config.texts.heading',
    help: 'config.texts.help',
    maxLength: HANDOFF_TEXT_MAX_CHARACTERS,
    fields: [
      { name: 'noOperatorAvailable', label: 'config.texts.noOperatorAvailable' },
      { name: 'customerRenotify', label: 'config.texts.customerRenotify' },
      { name: 'fallback', label: 'config.texts.fallback' },
      { name: 'operatorNotification', label: 'config.texts.operatorNotification' },
    ],
  },
  { kind: 'template', key: 'handoff_notice_template', heading: 'config.template.heading', help: 'config.template.help', label: 'config.template.label' },
  {
    kind: 'hours',
    key: 'availability_ttl_hours',
    heading: 'config.ttl.heading',
    help: 'config.ttl.help',
    label: 'config.ttl.label',
    ...AVAILABILITY_TTL_BOUNDS,
  },
];

/** The stored `handoff_texts` as the form's fields: a text left out shows empty (the deployment's text applies). */
export function handoffTextsOf(value: unknown): Record<HandoffTextName, string> {
  const stored = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  return Object.fromEntries(HANDOFF_TEXT_NAMES.map((name) => [name, typeof stored[name] === 'string' ? stored[name] : ''])) as Record<HandoffTextName, string>;
}

/** The form's texts back into the setting: an empty field leaves the deployment's text in force. */
export function handoffTextsValue(texts: Readonly<Record<HandoffTextName, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(texts).filter(([, text]) => text.trim() !== ''));
}
