import { errorSummary } from '../../../../lambda/core/adapters/observability/error-summary';
import { WhatsAppSendError } from '../../../../lambda/core/ports/whatsapp-sender';

it('keeps the name and codes of an error, never its message, cause or other fields', () => {
  const sdkError = Object.assign(new Error('Validation failed for input "Quero um exame de DNA"'), {
    name: 'ValidationException',
    $metadata: { httpStatusCode: 400 },
    input: { text: 'Quero um exame de DNA' },
  });

  const summary = errorSummary(sdkError);

  expect(summary).toEqual({ error: { errorName: 'ValidationException', httpStatus: 400 } });
  expect(JSON.stringify(summary)).not.toContain('DNA');
});

it('keeps the category and Meta code of a send failure', () => {
  const failure = new WhatsAppSendError('Meta refused', { category: 'recipient', retryable: false, outcomeUnknown: false, metaCode: 131026, httpStatus: 400, partsDelivered: 0 });

  expect(errorSummary(failure)).toEqual({ error: { errorName: 'WhatsAppSendError', errorCode: 131026, errorReason: 'recipient', httpStatus: 400 } });
});

it('summarises a thrown value that is not an object', () => {
  expect(errorSummary('boom')).toEqual({ error: { errorName: 'string' } });
});
