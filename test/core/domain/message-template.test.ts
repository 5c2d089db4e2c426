import { fillTemplate, inertCustomerText, textEndingWithLink } from '../../../lambda/core/domain/message-template';
import { InvalidConfigValueError, validateConfigValue } from '../../../lambda/core/domain/operational-settings';

describe('fillTemplate', () => {
  test('fills every placeholder in one pass: a value is never read again, and no $ pattern is expanded', () => {
    expect(fillTemplate('{a} and {b}', { a: '{b}', b: '$` $& $1 $$' })).toBe('{b} and $` $& $1 $$');
    expect(fillTemplate('{name}, {name}', { name: 'Ana' })).toBe('Ana, Ana');
    expect(fillTemplate('{unknown} {toString} {constructor}', {})).toBe('{unknown} {toString} {constructor}');
  });
});

describe('inertCustomerText', () => {
  test('keeps names as they are', () => {
    for (const name of ['Ana', 'José da Silva', 'D’Ávila', 'Anne-Marie O\'Neil', 'J. R. Tolkien', 'Ньютон', '王小明']) expect(inertCustomerText(name)).toBe(name);
  });

  test('one line without controls, braces, formatting marks or anything WhatsApp makes a link', () => {
    const cases: [string, string][] = [
      ['Ana\nSeu acesso expirou\r\nentre', 'Ana Seu acesso expirou entre'],
      ['{link} {name} $` $&', 'link name'],
      ['entre em https://console-login.example/login?next=x', 'entre em https console-login example login next x'],
      ['www.evil.example', 'www evil example'],
      ['ｅｖｉｌ．ｃｏｍ', 'evil com'],
      ['ana@evil.example', 'ana evil example'],
      ['*urgente* _agora_ ~já~ `code`', 'urgente agora já code'],
      ['Ana\u202egnp.exe\u200b', 'Ana gnp exe'],
      ['ligue +55 11 99999-0000 já', 'ligue 5511… já'],
      ['sala 1234', 'sala 1234'],
    ];
    for (const [hostile, inert] of cases) expect(inertCustomerText(hostile)).toBe(inert);
  });

  test('bounded, cut without splitting a character', () => {
    expect([...inertCustomerText('a'.repeat(5000))]).toHaveLength(60);
    expect(inertCustomerText('a'.repeat(5000)).endsWith('…')).toBe(true);
    expect([...inertCustomerText('𝒜'.repeat(100), 10)]).toEqual([...'A'.repeat(9), '…']);
    expect(inertCustomerText(' \n\t{}')).toBe('');
  });
});

describe('textEndingWithLink', () => {
  test('the link ends the text: at a final {link}, else on its own line; a {link} elsewhere is dropped', () => {
    expect(textEndingWithLink('Novo atendimento aguardando: {name}. Abra o console: {link}', { name: '{link}' }, 'https://console')).toBe(
      'Novo atendimento aguardando: {link}. Abra o console: https://console',
    );
    expect(textEndingWithLink('Aguardando: {name}.', { name: 'Ana' }, 'https://console')).toBe('Aguardando: Ana.\nhttps://console');
    expect(textEndingWithLink('Abra {link} agora: {name}', { name: 'Ana' }, 'https://console')).toBe('Abra  agora: Ana\nhttps://console');
    expect(textEndingWithLink('Seu link: {link}\n', {}, 'https://console/login#t')).toBe('Seu link: https://console/login#t');
  });

  test('an admin’s operator notice that puts the link anywhere but last is refused', () => {
    const set = (operatorNotification: string) => validateConfigValue('handoff_texts', { operatorNotification }, { author: '5511900000001', now: '2026-03-10T12:00:00Z' });
    expect(() => set('Abra {link} agora: {name}')).toThrow(InvalidConfigValueError);
    expect(() => set('Abra {link} agora: {name}')).toThrow('put {link} at the end of the text');
    expect(set('Aguardando: {name}. Console: {link}')).toEqual({ operatorNotification: 'Aguardando: {name}. Console: {link}' });
    expect(set('Aguardando: {name}.')).toEqual({ operatorNotification: 'Aguardando: {name}.' });
  });
});
