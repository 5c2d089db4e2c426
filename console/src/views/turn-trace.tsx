import { useState } from 'preact/hooks';
import type { TurnTraceView } from '../../../lib/contract/operator-api';
import { useConsole } from '../context';

/**
 * An admin's view of what the pipeline did for the turn a reply answers (`messageId`): the checks
 * it made, each model call and each tool call — loaded when the admin opens it, never customer text.
 */
export function TurnTrace({ customerId, messageId }: { readonly customerId: string; readonly messageId: string }) {
  const { t, api } = useConsole();
  const [trace, setTrace] = useState<TurnTraceView | 'none' | undefined>(undefined);
  const load = (event: Event) => {
    if (!(event.currentTarget as HTMLDetailsElement).open || trace !== undefined) return;
    api.turnTrace(customerId, messageId).then(setTrace, () => setTrace('none'));
  };
  return (
    <details class="turn-trace" onToggle={load}>
      <summary>{t('trace.show')}</summary>
      {trace === undefined && <p>{t('trace.loading')}</p>}
      {trace === 'none' && <p>{t('trace.none')}</p>}
      {trace !== undefined && trace !== 'none' && (
        <div>
          <h4>{t('trace.gates')}</h4>
          <ul>
            {trace.gates.map((gate) => (
              <li>{t('trace.gate', { gate: gate.gate, verdict: gate.verdict })}</li>
            ))}
          </ul>
          <h4>{t('trace.modelCalls')}</h4>
          <ol>
            {trace.modelCalls.map((call) => (
              <li>
                {t('trace.modelCall', {
                  inputTokens: call.inputTokens,
                  outputTokens: call.outputTokens,
                  cacheRead: call.cacheReadInputTokens ?? 0,
                  cacheWrite: call.cacheWriteInputTokens ?? 0,
                  latencyMs: call.latencyMs,
                  stopReason: call.stopReason,
                })}
                {call.replayed === true && ` · ${t('trace.replayed')}`}
              </li>
            ))}
          </ol>
          {trace.toolCalls.length > 0 && <h4>{t('trace.toolCalls')}</h4>}
          {trace.toolCalls.length > 0 && (
            <ol>
              {trace.toolCalls.map((call) => (
                <li>
                  {t('trace.toolCall', { name: call.name, outcome: call.outcome ?? '–', durationMs: call.durationMs ?? 0 })}
                  {call.sideEffects && ` · ${t('trace.sideEffects')}`}
                  {call.replayed === true && ` · ${t('trace.replayed')}`}
                  {call.recalled === true && ` · ${t('trace.recalled')}`}
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
    </details>
  );
}
