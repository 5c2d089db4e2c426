import { isTemplateStatus, type TemplateButton, type TemplateHeader, type WhatsAppTemplate } from '../../../domain/whatsapp-template';
import { isoMicros } from '../../../domain/timestamps';
import type { Item } from '../dynamo-kit';
import { ENTITY_TYPE, EntityType, messageTemplateKey } from '../keys';
import { ItemReader } from './item-reader';

export const TemplateAttribute = {
  status: 'status',
  statusReason: 'status_reason',
  updatedAt: 'updated_at',
} as const;

export function messageTemplateToItem(template: WhatsAppTemplate): Item {
  return {
    ...messageTemplateKey(template.name, template.language),
    [ENTITY_TYPE]: EntityType.messageTemplate,
    name: template.name,
    language: template.language,
    category: template.category,
    [TemplateAttribute.status]: template.status,
    meta_template_id: template.metaTemplateId,
    body: template.body,
    parameter_format: template.parameterFormat,
    body_parameters: [...template.bodyParameters],
    buttons: template.buttons.map((button) => ({ type: button.type, text: button.text, url: button.url, example: button.example })),
    header: template.header && { format: template.header.format, text: template.header.text, example: template.header.example },
    [TemplateAttribute.statusReason]: template.statusReason,
    [TemplateAttribute.updatedAt]: isoMicros(template.updatedAt),
  };
}

export function messageTemplateFromItem(item: Item): WhatsAppTemplate {
  const read = new ItemReader(item, EntityType.messageTemplate);
  const status = read.string(TemplateAttribute.status);
  const buttons = (read.raw('buttons') ?? []) as TemplateButton[];
  const header = read.raw('header') as TemplateHeader | undefined;
  return {
    name: read.string('name'),
    language: read.string('language'),
    category: read.string('category'),
    status: isTemplateStatus(status) ? status : 'PENDING',
    metaTemplateId: read.optionalString('meta_template_id'),
    body: read.optionalString('body') ?? '',
    parameterFormat: read.oneOf('parameter_format', ['positional', 'named'] as const),
    bodyParameters: read.stringList('body_parameters'),
    buttons: buttons.map((button) => ({ type: String(button.type), text: String(button.text), ...optionalText('url', button.url), ...optionalText('example', button.example) })),
    ...(header === undefined ? {} : { header: { format: String(header.format), ...optionalText('text', header.text), ...optionalText('example', header.example) } }),
    statusReason: read.optionalString(TemplateAttribute.statusReason),
    updatedAt: read.timestamp(TemplateAttribute.updatedAt),
  };
}

const optionalText = <Key extends string>(key: Key, value: unknown): { [K in Key]?: string } => (typeof value === 'string' ? ({ [key]: value } as { [K in Key]: string }) : {});
