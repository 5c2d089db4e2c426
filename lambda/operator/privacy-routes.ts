import type { DeadLetterScreen } from '../core/application/operator/dead-letter-snapshot';
import type { CustomerDataRights } from '../core/application/privacy/customer-data-rights';
import { HttpError } from './http-kit';
import { ok, route, type Route, signedInOf } from './router';

/**
 * The data subject's rights, for admins: export one customer's data, and erase it. The erase body
 * repeats the customer id (`confirm`), so a mistyped or replayed path cannot erase someone else;
 * the erased customer also leaves the dead-letter screen's last reading.
 */
export function privacyRoutes(rights: CustomerDataRights, deadLetters?: Pick<DeadLetterScreen, 'forget'>): Route[] {
  return [
    route('GET admin/customers/:customerId/export', 'admin', async (context) => ok(await rights.export(context.params.customerId, signedInOf(context).operator.phone))),
    route('POST admin/customers/:customerId/erase', 'admin', async (context) => {
      const { confirm } = context.body({ confirm: { type: 'string', required: true, maxLength: 200 } });
      const { customerId } = context.params;
      if (confirm !== customerId) throw new HttpError('bad_field', 'Field "confirm" must repeat the customer id being erased');
      const erasure = await rights.erase(customerId, signedInOf(context).operator.phone);
      await deadLetters?.forget(customerId);
      return ok({ erasure });
    }),
  ];
}
