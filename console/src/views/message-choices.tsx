import type { HistoryInteractive } from '../../../lib/contract/operator-api';
import { useConsole } from '../context';

/**
 * The buttons, list rows or link button a message carried, under its text, as the customer saw
 * them: shown, not pressable (the customer taps them on WhatsApp).
 */
export function MessageChoices({ interactive }: { readonly interactive: HistoryInteractive | undefined }) {
  const { t } = useConsole();
  if (interactive === undefined) return null;
  const { kind, header, footer, buttons = [], button, sections = [], displayText, url } = interactive;
  return (
    <div class={`message-choices message-choices-${kind}`}>
      {header !== undefined && <p class="message-choices-header">{header}</p>}
      {footer !== undefined && <p class="message-choices-footer">{footer}</p>}
      {kind === 'buttons' && (
        <ul aria-label={t('choices.buttons')}>
          {buttons.map((choice) => (
            <li>{choice.title}</li>
          ))}
        </ul>
      )}
      {kind === 'list' && (
        <>
          <p class="message-choices-opener">{t('choices.list', { button: button ?? '' })}</p>
          {sections.map((section) => (
            <ul aria-label={section.title ?? t('choices.rows')}>
              {section.rows.map((row) => (
                <li>
                  {row.title}
                  {row.description !== undefined && <span class="message-choices-description"> — {row.description}</span>}
                </li>
              ))}
            </ul>
          ))}
        </>
      )}
      {kind === 'cta_url' && (
        <p>
          {t('choices.link', { label: displayText ?? '' })} <span class="message-choices-url">{url}</span>
        </p>
      )}
    </div>
  );
}
