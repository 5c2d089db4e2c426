import { WhatsAppSendError } from '../../lambda/core/ports/whatsapp-sender';

/** The WhatsAppSendError a sender rejects with (fails the test when it resolves or throws anything else). */
export async function sendError(promise: Promise<unknown>): Promise<WhatsAppSendError> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(WhatsAppSendError);
  return error as WhatsAppSendError;
}
