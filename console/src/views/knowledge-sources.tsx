import { useConsole } from '../context';

/**
 * The documents of the business's knowledge base an agent reply drew on, under the reply: where an
 * operator checks what the agent said against what the business wrote. Shown as text, not links:
 * most are S3 URIs no browser opens.
 */
export function KnowledgeSources({ sources }: { readonly sources: readonly string[] | undefined }) {
  const { t } = useConsole();
  if (sources === undefined || sources.length === 0) return null;
  return (
    <div class="message-sources">
      <span class="message-sources-title">{t('conversation.sources')}</span>
      <ul>
        {sources.map((source) => (
          <li>{source}</li>
        ))}
      </ul>
    </div>
  );
}
