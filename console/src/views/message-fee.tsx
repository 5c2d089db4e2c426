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

/** Meta's fees of the messages shown, added up (the history's pages the console has loaded). */
export function ConversationFees({ messages }: { readonly messages: readonly HistoryEntry[] }) {
  const { t } = useConsole();
  const dollars = useDollars();
  const priced = messages.flatMap((message) => (message.metaFee?.usd === undefined ? [] : [message.metaFee.usd]));
  if (!useSeesCosts() || priced.length === 0) return null;
  const usd = priced.reduce((sum, fee) => sum + fee, 0);
  return <p class="conversation-fees">{t('conversation.metaFees', { usd: dollars(usd), billed: priced.filter((fee) => fee > 0).length })}</p>;
}
