// The name a template the pipeline sends by itself (a handoff notice, a re-engagement) puts in its
// value is the one people read everywhere else: the WhatsApp profile name, else the learned name.
import { templateNameOf } from '../../../lambda/core/application/named-template';
import { openSession } from '../../../lambda/core/domain/session';

const session = (fields: object = {}) => ({ ...openSession({ customerId: '5511987650008', customerIdKind: 'phone' }, 'S1', '2026-03-10T12:00:00.000000Z'), ...fields });

test.each([
  ['the profile name, when the customer is known by it only', { profileName: 'Diego Ramos' }, 'Diego Ramos'],
  ['the profile name before the name the agent learned', { profileName: 'Diego Ramos', cadastralData: { name: 'Diego' } }, 'Diego Ramos'],
  ['the learned name without a profile name', { cadastralData: { name: 'Diego' } }, 'Diego'],
  ['nothing when neither is known (a phone greets nobody)', { profileName: '  ' }, ''],
])('is %s', (_, fields, expected) => {
  expect(templateNameOf(session(fields))).toBe(expected);
});
