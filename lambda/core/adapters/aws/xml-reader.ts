/** One element of an XML answer: its name (without namespace prefix), child elements and text. */
export interface XmlElement {
  readonly name: string;
  readonly children: readonly XmlElement[];
  /** The element's own character data, entities resolved. */
  readonly text: string;
}

/** The answer is not the XML document it should be (truncated, malformed, an unknown entity). */
export class XmlReadError extends Error {
  override readonly name = 'XmlReadError';
}

const WHITESPACE = /\s*/y;
const OPEN_TAG = /<([A-Za-z_][\w.:-]*)(?:\s+[\w.:-]+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*\s*(\/?)>/y;
const CLOSE_TAG = /<\/([^\s>]+)\s*>/y;
const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const ESCAPES: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(NAMED_ENTITIES).map(([entity, character]) => [character, `&${entity};`]));

/**
 * Reads the small XML documents AWS REST-XML APIs answer with (S3's listings and errors). Strict
 * on purpose: a truncated answer or an unknown entity throws instead of yielding a partial listing,
 * which erasure would take for the whole. Attributes, comments and the prolog are skipped; no DTDs.
 */
export function readXml(source: string): XmlElement {
  let position = 0;

  const fail = (what: string): never => {
    throw new XmlReadError(`Malformed XML at character ${position}: ${what}`);
  };

  function skipMarkup(): void {
    for (;;) {
      WHITESPACE.lastIndex = position;
      position += WHITESPACE.exec(source)![0].length;
      if (source.startsWith('<?', position)) position = endOf('?>');
      else if (source.startsWith('<!--', position)) position = endOf('-->');
      else return;
    }
  }

  function endOf(terminator: string): number {
    const end = source.indexOf(terminator, position);
    if (end < 0) fail(`missing ${terminator}`);
    return end + terminator.length;
  }

  function readElement(): XmlElement {
    OPEN_TAG.lastIndex = position;
    const open = OPEN_TAG.exec(source) ?? fail('expected an element');
    position += open[0].length;
    const qualifiedName = open[1];
    const name = qualifiedName.slice(qualifiedName.indexOf(':') + 1);
    if (open[2] === '/') return { name, children: [], text: '' };
    const children: XmlElement[] = [];
    let text = '';
    for (;;) {
      const next = source.indexOf('<', position);
      if (next < 0) fail(`<${qualifiedName}> is not closed`);
      text += unescapeXml(source.slice(position, next));
      position = next;
      if (source.startsWith('</', position)) {
        CLOSE_TAG.lastIndex = position;
        const close = CLOSE_TAG.exec(source);
        if (close === null || close[1] !== qualifiedName) fail(`expected </${qualifiedName}>`);
        position += close![0].length;
        return { name, children, text };
      }
      if (source.startsWith('<!--', position)) position = endOf('-->');
      else if (source.startsWith('<![CDATA[', position)) {
        const end = endOf(']]>');
        text += source.slice(position + '<![CDATA['.length, end - ']]>'.length);
        position = end;
      } else children.push(readElement());
    }
  }

  skipMarkup();
  const root = readElement();
  skipMarkup();
  if (position !== source.length) fail('content after the root element');
  return root;
}

/** Character data with its entities resolved; an unknown or unterminated entity throws. */
export function unescapeXml(text: string): string {
  if (text.includes('<')) throw new XmlReadError('Malformed XML: "<" in character data');
  return text.replace(/&([^;&\s]*)(;?)/g, (_, entity: string, semicolon: string) => {
    if (semicolon !== ';') throw new XmlReadError(`Malformed XML: unterminated entity &${entity}`);
    const code = /^#x([0-9a-f]+)$/i.exec(entity)?.[1] ?? /^#([0-9]+)$/.exec(entity)?.[1];
    if (code !== undefined) {
      const point = entity.startsWith('#x') || entity.startsWith('#X') ? Number.parseInt(code, 16) : Number.parseInt(code, 10);
      if (point > 0x10ffff) throw new XmlReadError(`Malformed XML: character reference &${entity}; out of range`);
      return String.fromCodePoint(point);
    }
    const named = NAMED_ENTITIES[entity];
    if (named === undefined) throw new XmlReadError(`Malformed XML: unknown entity &${entity};`);
    return named;
  });
}

/** Text safe inside an XML element or attribute value. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]);
}

/** The first child named `name`, if any. */
export function childOf(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((child) => child.name === name);
}

/** Every child named `name`. */
export function childrenOf(element: XmlElement, name: string): readonly XmlElement[] {
  return element.children.filter((child) => child.name === name);
}
