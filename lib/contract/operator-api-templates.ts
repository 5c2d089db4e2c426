/**
 * The operator API's message templates (docs/OPERATOR-API.md, docs/TEMPLATES.md): what a stored
 * template asks a send for, and a send's values. Types only; re-exported by operator-api.ts.
 * Internal: not part of the jsii API.
 */

import type { Timestamp } from './operator-api-basics';

/** A template's identity: its name in one language (Meta's code, `pt_BR`). */
export interface TemplateRef {
  readonly name: string;
  readonly language: string;
}

/** An approved template and the values of its parameters; each one the template has must be given. */
export interface TemplateSendRequest extends TemplateRef {
  /** The body's values, in the order of {@link MessageTemplate.parameters}. */
  readonly values: readonly string[];
  /** The header's value, when {@link MessageTemplate.headerParameter} is present: its text, or an `https://` link or uploaded media id. */
  readonly header?: string;
  /** A value for each of {@link MessageTemplate.buttonParameters}: a URL button's suffix, a copy-code button's code. */
  readonly buttons?: readonly TemplateButtonValue[];
}

export interface TemplateButtonValue {
  /** The button's position among the template's buttons. */
  readonly index: number;
  readonly value: string;
}

/** A value a template's header takes: its text's one parameter, or the media it shows. */
export interface TemplateHeaderParameter {
  readonly kind: 'text' | 'image' | 'document' | 'video';
  /** The text header with its placeholder. */
  readonly text?: string;
  /** Meta's example. */
  readonly example?: string;
}

/** A value a button takes: the end of a URL button's link (`text`) or a copy-code button's code. */
export interface TemplateButtonParameter {
  readonly index: number;
  readonly kind: 'text' | 'coupon_code';
  /** The button's label. */
  readonly text: string;
  /** The URL whose `{{1}}` the value fills. */
  readonly url?: string;
  /** Meta's example. */
  readonly example?: string;
}

/** One of the business's WhatsApp message templates (one translation), as the last sync or status notification left it. */
export interface MessageTemplate extends TemplateRef {
  /** `MARKETING`, `UTILITY` or `AUTHENTICATION`. */
  readonly category: string;
  /** Meta's review status; only `APPROVED` templates can be sent. */
  readonly status: string;
  readonly statusReason?: string;
  /** The body with its placeholders (`{{1}}`, `{{name}}`). */
  readonly body: string;
  /** The body's parameters in the order a send fills them. */
  readonly parameters: readonly string[];
  readonly buttons: readonly { readonly type: string; readonly text: string; readonly url?: string }[];
  /** `TEXT`, `IMAGE`, `DOCUMENT`, `VIDEO`, `LOCATION`; absent without a header. */
  readonly headerFormat?: string;
  /** Present when a send gives the header a value. */
  readonly headerParameter?: TemplateHeaderParameter;
  /** The buttons a send gives a value, in their order. */
  readonly buttonParameters: readonly TemplateButtonParameter[];
  /** Whether the pipeline can send it by itself, as the handoff notice or the re-engagement: approved, no header or button value, at most one body value (the customer's name). */
  readonly sendableByPipeline: boolean;
  readonly updatedAt: Timestamp;
}

export interface TemplateSyncAnswer {
  readonly sync: {
    readonly stored: number;
    readonly removed: number;
    /** Entries of Meta's list the pipeline cannot read (never stored). */
    readonly unreadable: number;
  };
}
