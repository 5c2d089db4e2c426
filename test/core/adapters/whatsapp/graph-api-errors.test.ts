import { META_ERROR_CODES, classifyGraphApiError } from '../../../../lambda/core/adapters/whatsapp/graph-api-errors';

describe('Meta error code table', () => {
  it.each([
    { code: 131047, category: 'recipient', retryable: false },
    { code: 131026, category: 'recipient', retryable: false },
    { code: 100, category: 'request', retryable: false },
    { code: 131009, category: 'request', retryable: false },
    { code: 130429, category: 'rate_limit', retryable: true },
    { code: 131056, category: 'rate_limit', retryable: true },
    { code: 80007, category: 'rate_limit', retryable: true },
    { code: 4, category: 'rate_limit', retryable: true },
    { code: 131000, category: 'provider_unavailable', retryable: true },
    { code: 131016, category: 'provider_unavailable', retryable: true },
    { code: 190, category: 'authentication', retryable: true },
    { code: 0, category: 'authentication', retryable: true },
    { code: 10, category: 'account', retryable: true },
    { code: 131042, category: 'account', retryable: true },
  ])('code $code is $category, retryable: $retryable, whatever the HTTP status', ({ code, category, retryable }) => {
    for (const httpStatus of [400, 401, 403, 500]) {
      expect(classifyGraphApiError(httpStatus, code)).toMatchObject({ category, retryable });
    }
  });

  it('treats the whole 200-299 permission range as an account problem', () => {
    expect(classifyGraphApiError(403, 200)).toMatchObject({ category: 'account', retryable: true });
    expect(classifyGraphApiError(403, 299)).toMatchObject({ category: 'account', retryable: true });
  });

  it.each([
    { httpStatus: 429, category: 'rate_limit', retryable: true },
    { httpStatus: 500, category: 'provider_unavailable', retryable: true },
    { httpStatus: 503, category: 'provider_unavailable', retryable: true },
    { httpStatus: 401, category: 'authentication', retryable: true },
    { httpStatus: 403, category: 'account', retryable: true },
    { httpStatus: 400, category: 'request', retryable: false },
    { httpStatus: 404, category: 'request', retryable: false },
  ])('falls back to HTTP $httpStatus for an unknown code: $category', ({ httpStatus, category, retryable }) => {
    expect(classifyGraphApiError(httpStatus, 999_999)).toMatchObject({ category, retryable });
    expect(classifyGraphApiError(httpStatus, undefined)).toMatchObject({ category, retryable });
  });

  it('keeps every permanent entry about the recipient or the request, never about the account', () => {
    const permanent = Object.values(META_ERROR_CODES).filter((treatment) => !treatment.retryable);
    expect(new Set(permanent.map((treatment) => treatment.category))).toEqual(new Set(['recipient', 'request']));
    const retryable = Object.values(META_ERROR_CODES).filter((treatment) => treatment.retryable);
    expect(retryable.some((treatment) => treatment.category === 'recipient' || treatment.category === 'request')).toBe(false);
  });
});
