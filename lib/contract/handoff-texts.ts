/**
 * The texts the operator plane sends when a conversation goes to people. Every text may also be
 * changed at run time by an admin (setting `handoff_texts`), which overrides these per text.
 *
 * The defaults are the texts of the pipeline's `locale` (`lib/contract/locale-presets.ts`); each
 * `@default` below quotes the pt-BR one.
 */
export interface HandoffTexts {
  /**
   * To the customer when the conversation is handed to people and nobody is available.
   *
   * @default - the `locale`'s text; for pt-BR 'No momento não há atendentes disponíveis. Sua mensagem ficou registrada e responderemos assim que possível.'
   */
  readonly noOperatorAvailable?: string;

  /**
   * To the customer, once, when the conversation has waited `customerRenotifyAfter` for a person.
   *
   * @default - the `locale`'s text; for pt-BR 'Obrigado por aguardar! Uma pessoa da nossa equipe vai responder em breve.'
   */
  readonly customerRenotify?: string;

  /**
   * To the customer when the agent failed for good on their message; the conversation then goes to people.
   *
   * @default - the `locale`'s text; for pt-BR 'Desculpe, tive um problema para responder agora. Vou passar sua conversa para uma pessoa da nossa equipe.'
   */
  readonly fallback?: string;

  /**
   * To each available operator about a waiting conversation; `{name}` becomes the customer's name
   * (as plain words on one line, at most 60 characters, never a link) or number. The console URL
   * always ends the notice: at a final `{link}`, or on a line of its own after the text;
   * `{link}` anywhere else is refused.
   *
   * @default - the `locale`'s text; for pt-BR 'Novo atendimento aguardando: {name}. Abra o console: {link}'
   */
  readonly operatorNotification?: string;
}
