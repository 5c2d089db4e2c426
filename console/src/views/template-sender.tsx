import { useState } from 'preact/hooks';
import type { MessageTemplate, TemplateHeaderParameter } from '../../../lib/contract/operator-api';
import { useConsole } from '../context';
import { describeFailure, FeedbackLine, LoadError, useRemote, type Feedback } from './common';

/**
 * An approved template with a value for each of its parameters: the one message WhatsApp delivers
 * once the customer's window closed, and a way to re-engage them. The preview shows the text the
 * customer will read.
 */
export function TemplateSender({ customerId, onSent }: { readonly customerId: string; readonly onSent: () => Promise<void> }) {
  const { t, api } = useConsole();
  const { data: templates, error } = useRemote(() => api.templates(), []);
  const [chosen, setChosen] = useState('');
  const [values, setValues] = useState<readonly string[]>([]);
  const [header, setHeader] = useState('');
  const [buttons, setButtons] = useState<Readonly<Record<number, string>>>({});
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const [busy, setBusy] = useState(false);
  const approved = (templates ?? []).filter((template) => template.status === 'APPROVED');
  const template = approved.find((candidate) => templateKey(candidate) === chosen);
  const complete =
    template !== undefined &&
    template.parameters.every((_, index) => (values[index] ?? '').trim() !== '') &&
    (template.headerParameter === undefined || header.trim() !== '') &&
    template.buttonParameters.every((button) => (buttons[button.index] ?? '').trim() !== '');
  const clear = () => {
    setValues([]);
    setHeader('');
    setButtons({});
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    if (template === undefined || !complete) return;
    setBusy(true);
    try {
      await api.sendTemplate(customerId, {
        name: template.name,
        language: template.language,
        values: template.parameters.map((_, index) => values[index]),
        ...(template.headerParameter === undefined ? {} : { header: header.trim() }),
        ...(template.buttonParameters.length === 0 ? {} : { buttons: template.buttonParameters.map((button) => ({ index: button.index, value: buttons[button.index].trim() })) }),
      });
      setFeedback({ kind: 'ok', text: t('template.sent') });
      setChosen('');
      clear();
      await onSent();
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'reply') });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="template-sender" aria-label={t('template.heading')} onSubmit={submit}>
      <h3>{t('template.heading')}</h3>
      <LoadError error={error} />
      <label for="template-choice">{t('template.choose')}</label>
      <select
        id="template-choice"
        value={chosen}
        onChange={(event) => {
          setChosen((event.currentTarget as HTMLSelectElement).value);
          clear();
        }}
      >
        <option value="">{t('template.none')}</option>
        {approved.map((candidate) => (
          <option value={templateKey(candidate)}>
            {candidate.name} ({candidate.language})
          </option>
        ))}
      </select>
      {template?.headerParameter !== undefined && (
        <>
          <label for="template-header">{headerLabel(t, template.headerParameter)}</label>
          <input
            id="template-header"
            type="text"
            maxLength={template.headerParameter.kind === 'text' ? 60 : 2048}
            placeholder={template.headerParameter.example}
            value={header}
            onInput={(event) => setHeader((event.currentTarget as HTMLInputElement).value)}
          />
        </>
      )}
      {template?.parameters.map((parameter, index) => (
        <>
          <label for={`template-value-${index}`}>{t('template.value', { parameter: `{{${parameter}}}` })}</label>
          <input
            id={`template-value-${index}`}
            type="text"
            maxLength={1024}
            value={values[index] ?? ''}
            onInput={(event) => {
              const value = (event.currentTarget as HTMLInputElement).value;
              setValues((all) => template.parameters.map((_, other) => (other === index ? value : (all[other] ?? ''))));
            }}
          />
        </>
      ))}
      {template?.buttonParameters.map((button) => (
        <>
          <label for={`template-button-${button.index}`}>
            {button.kind === 'coupon_code' ? t('template.couponCode') : t('template.urlSuffix', { button: button.text, url: button.url ?? '' })}
          </label>
          <input
            id={`template-button-${button.index}`}
            type="text"
            maxLength={button.kind === 'coupon_code' ? 15 : 2000}
            placeholder={button.kind === 'coupon_code' ? button.example : suffixOf(button.url, button.example)}
            value={buttons[button.index] ?? ''}
            onInput={(event) => {
              const value = (event.currentTarget as HTMLInputElement).value;
              setButtons((all) => ({ ...all, [button.index]: value }));
            }}
          />
        </>
      ))}
      {template !== undefined && (
        <p class="template-preview">
          {t('template.preview')} <q>{previewOf(template, values)}</q>
        </p>
      )}
      <button type="submit" class="primary" disabled={busy || !complete}>
        {t('template.send')}
      </button>
      <FeedbackLine feedback={feedback} />
    </form>
  );
}

/** What the header asks for: its text's value, or a link to the image, document or video it shows. */
function headerLabel(t: ReturnType<typeof useConsole>['t'], parameter: TemplateHeaderParameter): string {
  if (parameter.kind === 'text') return t('template.headerText', { text: parameter.text ?? '' });
  return t(`template.headerMedia.${parameter.kind}`);
}

/** The part of Meta's example URL that the value replaces: what an operator types. */
function suffixOf(url: string | undefined, example: string | undefined): string | undefined {
  const prefix = url?.replace(/\{\{\s*1\s*\}\}$/, '');
  return prefix !== undefined && example?.startsWith(prefix) ? example.slice(prefix.length) : undefined;
}

const templateKey = (template: Pick<MessageTemplate, 'name' | 'language'>) => `${template.name}/${template.language}`;

function previewOf(template: MessageTemplate, values: readonly string[]): string {
  return template.body.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (placeholder, name: string) => {
    const value = values[template.parameters.indexOf(name)];
    return value === undefined || value === '' ? placeholder : value;
  });
}
