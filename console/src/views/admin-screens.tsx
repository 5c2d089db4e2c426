import type { AdminScreen } from '../view-model';
import { AdminListScreen } from './admin-lists';
import { ConfigScreen, OperatorsScreen } from './admin-config';
import { CrmScreen } from './admin-crm';
import { CustomerDataScreen } from './admin-customers';
import { DeadLettersScreen } from './admin-dead-letters';
import { PromptsScreen } from './admin-prompts';
import { QuickRepliesScreen } from './admin-quick-replies';
import { ScenariosScreen } from './admin-scenarios';
import { ReportsScreen } from './admin-reports';
import { TemplatesScreen } from './admin-templates';

/** The admin screen a route names: a chunk of its own, which the shell loads when an admin opens one. */
export function AdminScreenView({ screen }: { readonly screen: AdminScreen }) {
  switch (screen) {
    case 'prompts':
      return <PromptsScreen />;
    case 'scenarios':
      return <ScenariosScreen />;
    case 'operators':
      return <OperatorsScreen />;
    case 'config':
      return <ConfigScreen />;
    case 'reports':
      return <ReportsScreen />;
    case 'dead-letters':
      return <DeadLettersScreen />;
    case 'crm':
      return <CrmScreen />;
    case 'customers':
      return <CustomerDataScreen />;
    case 'templates':
      return <TemplatesScreen />;
    case 'quick-replies':
      return <QuickRepliesScreen />;
    default:
      return <AdminListScreen key={screen} screen={screen} />;
  }
}
