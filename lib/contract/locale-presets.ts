/**
 * What each `Locale` makes the pipeline say, and which words it takes as an opt-out or opt-in.
 * CDK-free: the construct documents these texts as its defaults, the Lambda handlers and the local
 * runtime send them. Internal: not part of the jsii API.
 */
import type { HandoffTexts } from './handoff-texts';
import { Locale } from './locale';

/** Every text a customer or an operator receives from the pipeline unless a prop or a setting replaces it. */
export type LocaleText =
  /** A customer over their own turn or token budget (`customerBudget.reply`). */
  | 'customerOverBudgetReply'
  /** Every customer once the pipeline's daily budget is spent (`pipelineBudget.reply`). */
  | 'pipelineOverBudgetReply'
  /** A turn failed for good and no person takes the conversation (`fallbackText`). */
  | 'turnFailed'
  /** The agent had nothing to say before the turn's deadline (`deadlineFallbackText`). */
  | 'agentDeadline'
  /** `handoffTexts.noOperatorAvailable`. */
  | 'noOperatorAvailable'
  /** `handoffTexts.customerRenotify`. */
  | 'customerRenotify'
  /** `handoffTexts.fallback`. */
  | 'handoffFallback'
  /** `handoffTexts.operatorNotification`: `{name}` is the customer, `{link}` the console. */
  | 'operatorNotification'
  /** The confirmation of an opt-out word; it names an opt-in word of the same locale. */
  | 'optedOut'
  /** The confirmation of an opt-in word. */
  | 'optedIn'
  /** An operator's console link after `login`; `{link}` ends it. */
  | 'loginLink'
  /** A customer's message of a type the pipeline cannot read (a poll, a new kind of message), once per conversation (`unsupportedMessageText`). */
  | 'unsupportedMessage'
  /** The scripted agent's answer (`npm start`, tests): `{messages}` is the turn, `{count}` the customer's messages so far. */
  | 'scriptedReply';

export type LocaleTexts = Readonly<Record<LocaleText, string>>;

/** Whole messages that withdraw or grant again the customer's messaging consent (case, accents and punctuation around them ignored). */
export interface ConsentWords {
  readonly optOut: readonly string[];
  readonly optIn: readonly string[];
}

export interface LocalePreset {
  readonly texts: LocaleTexts;
  readonly consentWords: ConsentWords;
  /** The language Amazon Transcribe hears voice notes in (`media.transcription.languageCode`). */
  readonly transcriptionLanguageCode: string;
}

/** The locale of a pipeline that sets none. */
export const DEFAULT_LOCALE = Locale.PT_BR;

export const LOCALE_PRESETS: Readonly<Record<Locale, LocalePreset>> = {
  [Locale.PT_BR]: {
    texts: {
      customerOverBudgetReply: 'Recebemos muitas mensagens suas em pouco tempo. Por favor, aguarde alguns minutos e escreva de novo.',
      pipelineOverBudgetReply: 'Nosso atendimento automático atingiu o limite de hoje. Por favor, escreva de novo amanhã; sua mensagem ficou registrada.',
      turnFailed: 'Desculpe, tive um problema técnico e não consegui responder agora. Por favor, escreva de novo em alguns minutos.',
      agentDeadline: 'Desculpe, não consegui concluir minha resposta agora. Pode repetir sua última mensagem em instantes?',
      noOperatorAvailable: 'No momento não há atendentes disponíveis. Sua mensagem ficou registrada e responderemos assim que possível.',
      customerRenotify: 'Obrigado por aguardar! Uma pessoa da nossa equipe vai responder em breve.',
      handoffFallback: 'Desculpe, tive um problema para responder agora. Vou passar sua conversa para uma pessoa da nossa equipe.',
      operatorNotification: 'Novo atendimento aguardando: {name}. Abra o console: {link}',
      optedOut: 'Pronto: você não vai mais receber mensagens nossas por aqui. Para voltar, envie VOLTAR.',
      optedIn: 'Que bom ter você de volta! Pode mandar sua mensagem.',
      loginLink: 'Seu link de acesso ao console (vale 10 minutos, uso único): {link}',
      unsupportedMessage: 'Desculpe, não consigo ler esse tipo de mensagem. Pode escrever em texto, ou enviar uma foto, um áudio ou um documento?',
      scriptedReply: 'Olá! Recebi: {messages} (mensagem {count})',
    },
    consentWords: { optOut: ['PARAR', 'STOP', 'SAIR'], optIn: ['VOLTAR', 'START'] },
    transcriptionLanguageCode: 'pt-BR',
  },
  [Locale.EN]: {
    texts: {
      customerOverBudgetReply: 'We have received many messages from you in a short time. Please wait a few minutes and write again.',
      pipelineOverBudgetReply: 'Our automated service has reached its limit for today. Please write again tomorrow; your message has been recorded.',
      turnFailed: 'Sorry, I had a technical problem and could not answer just now. Please write again in a few minutes.',
      agentDeadline: 'Sorry, I could not finish my answer just now. Could you repeat your last message in a moment?',
      noOperatorAvailable: 'Nobody from our team is available right now. Your message has been recorded and we will answer as soon as we can.',
      customerRenotify: 'Thank you for waiting! Someone from our team will answer soon.',
      handoffFallback: 'Sorry, I had a problem answering just now. I am passing your conversation to someone from our team.',
      operatorNotification: 'New conversation waiting: {name}. Open the console: {link}',
      optedOut: 'Done: you will no longer receive messages from us here. To come back, send START.',
      optedIn: 'Welcome back! Go ahead and send your message.',
      loginLink: 'Your sign-in link to the console (valid for 10 minutes, single use): {link}',
      unsupportedMessage: 'Sorry, I cannot read this kind of message. Could you write it as text, or send a photo, a voice note or a document?',
      scriptedReply: 'Hello! I received: {messages} (message {count})',
    },
    consentWords: { optOut: ['STOP', 'UNSUBSCRIBE'], optIn: ['START'] },
    transcriptionLanguageCode: 'en-US',
  },
  [Locale.ES]: {
    texts: {
      customerOverBudgetReply: 'Recibimos muchos mensajes tuyos en poco tiempo. Por favor, espera unos minutos y vuelve a escribir.',
      pipelineOverBudgetReply: 'Nuestra atención automática llegó al límite de hoy. Por favor, vuelve a escribir mañana; tu mensaje quedó registrado.',
      turnFailed: 'Lo siento, tuve un problema técnico y no pude responder ahora. Por favor, vuelve a escribir en unos minutos.',
      agentDeadline: 'Lo siento, no pude terminar mi respuesta ahora. ¿Puedes repetir tu último mensaje en un momento?',
      noOperatorAvailable: 'En este momento no hay agentes disponibles. Tu mensaje quedó registrado y te responderemos lo antes posible.',
      customerRenotify: '¡Gracias por esperar! Una persona de nuestro equipo te responderá pronto.',
      handoffFallback: 'Lo siento, tuve un problema para responder ahora. Paso tu conversación a una persona de nuestro equipo.',
      operatorNotification: 'Nueva conversación en espera: {name}. Abre la consola: {link}',
      optedOut: 'Listo: ya no recibirás mensajes nuestros por aquí. Para volver, envía VOLVER.',
      optedIn: '¡Qué bueno tenerte de vuelta! Ya puedes enviar tu mensaje.',
      loginLink: 'Tu enlace de acceso a la consola (válido 10 minutos, un solo uso): {link}',
      unsupportedMessage: 'Lo siento, no puedo leer este tipo de mensaje. ¿Puedes escribirlo en texto, o enviar una foto, un audio o un documento?',
      scriptedReply: '¡Hola! Recibí: {messages} (mensaje {count})',
    },
    consentWords: { optOut: ['PARAR', 'BAJA', 'CANCELAR', 'STOP'], optIn: ['VOLVER', 'ALTA', 'START'] },
    transcriptionLanguageCode: 'es-US',
  },
};

/** The preset of `locale`; a pipeline without one speaks {@link DEFAULT_LOCALE}. */
export function localePreset(locale: Locale = DEFAULT_LOCALE): LocalePreset {
  return LOCALE_PRESETS[locale];
}

/** The locale a value names (`pt-BR`, `en`, `es`), or undefined for anything else. */
export function parseLocale(value: string): Locale | undefined {
  return (Object.values(Locale) as string[]).includes(value) ? (value as Locale) : undefined;
}

/** The preset's texts in the shape of the `handoffTexts` prop. */
export function handoffTextsOf(texts: LocaleTexts): Required<HandoffTexts> {
  return {
    noOperatorAvailable: texts.noOperatorAvailable,
    customerRenotify: texts.customerRenotify,
    fallback: texts.handoffFallback,
    operatorNotification: texts.operatorNotification,
  };
}
