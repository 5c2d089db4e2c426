// Who the operators are: the deploy-time admins, with the names the deployment gives them, and the
// operators list in the configuration.
import { OperatorDirectory } from '../../../../lambda/core/application/operator/operator-directory';
import type { OperationalConfigRepository } from '../../../../lambda/core/ports/repositories';

const ANA = '5511900000001';
const BRUNO = '5511900000002';
const CAIO = '5511900000003';

function directory(stored: Record<string, unknown>, adminDisplayNames?: Record<string, string>): OperatorDirectory {
  const config = { get: async () => ({ value: stored }) } as unknown as OperationalConfigRepository;
  return new OperatorDirectory({ config, adminPhoneNumbers: [ANA, BRUNO], adminDisplayNames });
}

it('names the deploy-time admins as the deployment does, where the operators list does not', async () => {
  const operators = directory({ [BRUNO]: { role: 'admin', name: 'Bruno (da lista)' }, [CAIO]: { role: 'operator', name: 'Caio' } }, { [ANA]: 'Ana Lima', [BRUNO]: 'Bruno Souza' });
  expect(await operators.list()).toEqual([
    { phone: ANA, role: 'admin', name: 'Ana Lima' },
    { phone: BRUNO, role: 'admin', name: 'Bruno (da lista)' },
    { phone: CAIO, role: 'operator', name: 'Caio' },
  ]);
  expect(await operators.find(ANA)).toEqual({ phone: ANA, role: 'admin', name: 'Ana Lima' });
});

it('leaves a deploy-time admin unnamed when neither names them', async () => {
  expect(await directory({}).find(ANA)).toEqual({ phone: ANA, role: 'admin', name: undefined });
});
