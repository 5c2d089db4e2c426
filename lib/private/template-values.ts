/**
 * The values of a synthesized template as CloudFormation resolves them at deploy: the structure of
 * the intrinsics (`Fn::Join`, `Fn::Sub`, `Fn::Select`, `Fn::Split`, `AWS::NoValue`) is evaluated
 * here; what a reference is worth (`Ref`, `Fn::GetAtt`, the pseudo parameters) and any other
 * function are the subclass's. The deploy-limit check's worst case (worst-case-values.ts) and the
 * permission check's concrete deployment (in the test suites) are the two. Internal.
 */
export abstract class TemplateValues {
  /** `value` with every intrinsic resolved; `AWS::NoValue` leaves its property or list item out. */
  public resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.resolve(item)).filter((item) => item !== NO_VALUE);
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1 && (entries[0][0] === 'Ref' || entries[0][0].startsWith('Fn::'))) return this.intrinsic(entries[0][0], entries[0][1]);
    return Object.fromEntries(entries.map(([key, item]) => [key, this.resolve(item)]).filter(([, item]) => item !== NO_VALUE));
  }

  /** `resolve()`, for a value that deploys as text. */
  public abstract text(value: unknown): string;

  /** What `Ref` to a resource or a pseudo parameter (other than `AWS::NoValue`) is worth. */
  protected abstract ref(logicalId: string): unknown;

  /** What `Fn::GetAtt` is worth. */
  protected abstract attribute(logicalId: string, attribute: string): unknown;

  /** A function other than the structural ones: `Fn::If`, `Fn::ImportValue`… */
  protected abstract otherFunction(name: string, argument: unknown): unknown;

  /** `Fn::Select` past the end of its list. */
  protected missingItem(_items: unknown[]): unknown {
    return undefined;
  }

  private intrinsic(name: string, argument: unknown): unknown {
    switch (name) {
      case 'Ref':
        return argument === 'AWS::NoValue' ? NO_VALUE : this.ref(String(argument));
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = Array.isArray(argument) ? argument.map(String) : String(argument).split(/\.(.*)/);
        return this.attribute(logicalId, attribute);
      }
      case 'Fn::Join': {
        const [separator, parts] = argument as [string, unknown];
        const list = this.resolve(parts);
        return Array.isArray(list) ? list.map(String).join(separator) : String(list);
      }
      case 'Fn::Select': {
        const [index, list] = argument as [unknown, unknown];
        const items = this.resolve(list);
        if (!Array.isArray(items)) return items;
        return items[Number(this.resolve(index))] ?? this.missingItem(items);
      }
      case 'Fn::Split': {
        const [separator, source] = argument as [string, unknown];
        return this.text(source).split(separator);
      }
      case 'Fn::Sub':
        return this.sub(argument);
      default:
        return this.otherFunction(name, argument);
    }
  }

  private sub(argument: unknown): string {
    const [pattern, variables = {}] = Array.isArray(argument) ? (argument as [string, Record<string, unknown>]) : [String(argument)];
    return pattern.replace(/\$\{(!?)([^}]+)\}/g, (_, literal: string, reference: string) => {
      if (literal) return `\${${reference}}`;
      if (reference in variables) return String(this.resolve(variables[reference]));
      const [logicalId, attribute] = reference.split(/\.(.*)/);
      return String(attribute === undefined ? this.ref(logicalId) : this.attribute(logicalId, attribute));
    });
  }
}

/** `AWS::NoValue`: the property or list item is left out. */
export const NO_VALUE = Symbol('AWS::NoValue');
