/**
 * The language of a pipeline: every text it sends customers and operators, the words that opt a
 * customer out of messages and back in, and the console's default language. Set with the `locale`
 * prop of an `AgentPipeline`; each text prop (`handoffTexts`, `fallbackText`…) still replaces its
 * text of the preset.
 */
export enum Locale {
  /** Brazilian Portuguese. Opt-out words PARAR, SAIR and STOP; opt-in VOLTAR and START. */
  PT_BR = 'pt-BR',
  /** English. Opt-out words STOP and UNSUBSCRIBE; opt-in START. */
  EN = 'en',
  /** Spanish. Opt-out words PARAR, BAJA, CANCELAR and STOP; opt-in VOLVER, ALTA and START. */
  ES = 'es',
}
