import { customerPseudonym } from '../../domain/privacy';
import type { CustomerDataRepository } from '../../ports/customer-data';

/**
 * The names the admin audit gives customers (docs/PRIVACY.md): the HMAC-SHA-256 of the customer id
 * under the deployment's salt. The salt never changes once created, so it is read once per process.
 */
export class CustomerPseudonyms {
  private salt?: Promise<string>;

  constructor(private readonly salts: Pick<CustomerDataRepository, 'pseudonymSalt'>) {}

  async of(customerId: string): Promise<string> {
    this.salt ??= this.salts.pseudonymSalt();
    try {
      return customerPseudonym(await this.salt, customerId);
    } catch (error) {
      // A failed read is not remembered: the next action reads the salt again.
      this.salt = undefined;
      throw error;
    }
  }
}
