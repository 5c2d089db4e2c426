import { CustomerDataRights, ErasureIncompleteError, InvalidCustomerIdError } from '../core/application/privacy/customer-data-rights';
import { HttpError } from './http-kit';
import { ok, route, type Route, signedInOf } from './operator-http';

/**
 * The data subject's rights, for admins: export one customer's data, and erase it. The erase body
 * repeats the customer id (`confirm`), so a mistyped or replayed path cannot erase someone else.
 */
export function privacyRoutes(rights: CustomerDataRights): Route[] {
  return [
    route('GET admin/customers/:customerId/export', 'admin', async (context) => ok(await asHttp(() => rights.export(context.params.customerId, signedInOf(context).operator.phone)))),
    route('POST admin/customers/:customerId/erase', 'admin', async (context) => {
      const { confirm } = context.body({ confirm: { type: 'string', required: true, maxLength: 200 } });
      const { customerId } = context.params;
      if (confirm !== customerId) throw new HttpError(400, 'bad_field', 'Field "confirm" must repeat the customer id being erased');
      return ok({ erasure: await asHttp(() => rights.erase(customerId, signedInOf(context).operator.phone)) });
    }),
  ];
}

async function asHttp<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof InvalidCustomerIdError) throw new HttpError(400, 'bad_customer_id', error.message);
    if (error instanceof ErasureIncompleteError) throw new HttpError(409, 'conflict', error.message);
    throw error;
  }
}
