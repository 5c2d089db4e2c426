import type { CustomerDataRights } from '../core/application/privacy/customer-data-rights';
import { HttpError, json, jsonBody } from './http-kit';
import { type Route, signedInOf } from './operator-http';

/**
 * The data subject's rights, for admins: export one customer's data, and erase it. The erase body
 * repeats the customer id (`confirm`), so a mistyped or replayed path cannot erase someone else.
 */
export function privacyRoutes(rights: CustomerDataRights): Route[] {
  return [
    {
      method: 'GET',
      path: 'admin/customers/:customerId/export',
      access: 'admin',
      handle: async (context) => json(200, await rights.export(context.params.customerId, signedInOf(context).operator.phone)),
    },
    {
      method: 'POST',
      path: 'admin/customers/:customerId/erase',
      access: 'admin',
      async handle(context) {
        const { confirm } = jsonBody(context.event, { confirm: { type: 'string', required: true, maxLength: 200 } });
        const { customerId } = context.params;
        if (confirm !== customerId) throw new HttpError('bad_field', 'Field "confirm" must repeat the customer id being erased');
        return json(200, { erasure: await rights.erase(customerId, signedInOf(context).operator.phone) });
      },
    },
  ];
}
