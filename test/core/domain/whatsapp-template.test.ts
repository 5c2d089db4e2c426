import { fillTemplateParameters } from '../../../lambda/core/domain/template-parameters';
import { bodyParametersOf, renderTemplateBody, statusAfterEvent, templateFromMeta } from '../../../lambda/core/domain/whatsapp-template';
import { HANDOFF_NOTICE_TEMPLATE, REENGAGEMENT_TEMPLATE } from '../../support/message-templates';

const at = '2026-03-10T12:00:00.000000Z';

describe('templates as Meta describes them', () => {
  test('reads the body, its parameters in order of first use, and the buttons', () => {
    const template = templateFromMeta({ ...REENGAGEMENT_TEMPLATE, id: '42' }, at)!;
    expect(template).toMatchObject({ name: 'retomar_conversa', language: 'pt_BR', status: 'APPROVED', metaTemplateId: '42', parameterFormat: 'positional', bodyParameters: ['1', '2'] });
    expect(template.buttons).toEqual([{ type: 'QUICK_REPLY', text: 'Continuar' }, { type: 'QUICK_REPLY', text: 'PARAR' }]);
    expect(templateFromMeta(HANDOFF_NOTICE_TEMPLATE, at)).toMatchObject({ parameterFormat: 'named', bodyParameters: ['cliente'] });
    expect(bodyParametersOf('{{2}} and {{1}} and {{ 2 }}')).toEqual(['2', '1']);
  });

  test('is not a template without a valid name, language and status', () => {
    for (const broken of [null, 'x', { ...REENGAGEMENT_TEMPLATE, name: 'Com Espaço' }, { ...REENGAGEMENT_TEMPLATE, language: 'portuguese' }, { ...REENGAGEMENT_TEMPLATE, status: 'MAYBE' }]) {
      expect(templateFromMeta(broken, at)).toBeUndefined();
    }
  });

  test('a flagged template stays sendable and a reinstated one is approved again', () => {
    expect(statusAfterEvent('FLAGGED')).toBe('APPROVED');
    expect(statusAfterEvent('REINSTATED')).toBe('APPROVED');
    expect(statusAfterEvent('PAUSED')).toBe('PAUSED');
    expect(statusAfterEvent('SOMETHING_NEW')).toBeUndefined();
  });
});

describe('values for a send', () => {
  const template = templateFromMeta(REENGAGEMENT_TEMPLATE, at)!;

  test('fill the body as the customer reads it; a value is never read again for placeholders', () => {
    expect(renderTemplateBody(template, ['{{2}}', 'o exame'])).toBe('Olá {{2}}, ainda podemos ajudar com o exame? Responda esta mensagem para continuar.');
  });

  test('are refused for a template not approved, the wrong count, or what WhatsApp refuses in a value', () => {
    const problem = (values: readonly string[], candidate = template) => {
      const filled = fillTemplateParameters(candidate, { body: values });
      return 'problem' in filled ? filled.problem : undefined;
    };
    expect(problem(['Ana', 'o exame'])).toBeUndefined();
    expect(problem(['Ana', 'o exame'], { ...template, status: 'PAUSED' })).toContain('PAUSED');
    expect(problem(['Ana'])).toContain('takes 2 value(s)');
    for (const bad of ['', '  ', 'Ana\nSilva', 'Ana\tSilva', 'Ana      Silva', 'a'.repeat(1025)]) expect(problem([bad, 'x'])).toContain('the body value {{1}}');
  });
});
