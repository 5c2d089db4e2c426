import type { WhatsAppCredentials, WhatsAppCredentialsProvider } from '../../ports/credentials';

/** Fixed credentials for the local runtime and tests (no Secrets Manager involved). */
export class StaticCredentialsProvider implements WhatsAppCredentialsProvider {
  constructor(private readonly credentials: WhatsAppCredentials) {}

  async get(): Promise<WhatsAppCredentials> {
    return this.credentials;
  }
}
