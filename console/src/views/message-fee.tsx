import type { HistoryEntry, MetaFee } from '../../../lib/contract/operator-api';
import { useConsole } from '../context';
import { useDollars } from './common';

/** Costs are the admins' to see, as in the reports. */
function useSeesCosts(): boolean {
  return useConsole().session.role === 'admin';
}

/** What Meta charges for one sent message, beside its ticks: nothing shown while Meta has not priced it, or when the rate table has no rate for its category. */
export function MessageFee({ fee }: { readonly fee: MetaFee }) {
  const { t } = useConsole();
  const dollars = useDollars();
  if (!useSeesCosts() || fee.usd === undefined) return null;
  const words = fee.usd === 0 ? t('conversation.metaFeeFree', { category: fee.category }) : t('conversation.metaFee', { usd: dollars(fee.usd), category: fee.category });
  return <span class="message-fee">{` · ${words}`}</span>;
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/** What the messages shown cost, added up (the history's pages the console has loaded): Meta's fees, the agent's model calls and AWS's share. */
export function ConversationCost({ messages }: { readonly messages: readonly HistoryEntry[] }) {
  const { t } = useConsole();
  const dollars = useDollars();
  const fees = messages.flatMap((message) => (message.metaFee?.usd === undefined ? [] : [message.metaFee.usd]));
  const replies = messages.flatMap((message) => (message.agentCost === undefined ? [] : [message.agentCost]));
  if (!useSeesCosts() || fees.length + replies.length === 0) return null;
  const [meta, model, aws] = [sum(fees), sum(replies.map((cost) => cost.modelUsd ?? 0)), sum(replies.map((cost) => cost.awsUsd))];
  const words = { total: dollars(meta + model + aws), meta: dollars(meta), billed: fees.filter((fee) => fee > 0).length, model: dollars(model), aws: dollars(aws) };
  return <p class="conversation-fees">{t('conversation.cost', words)}</p>;
}
