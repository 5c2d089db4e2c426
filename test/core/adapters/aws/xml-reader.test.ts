import { escapeXml, readXml, unescapeXml, XmlReadError } from '../../../../lambda/core/adapters/aws/xml-reader';

describe('the XML reader of AWS answers', () => {
  test('reads elements, text and namespaced names, skipping the prolog, attributes and comments', () => {
    const root = readXml('<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><!-- a page --><Name>media</Name><s3:Empty/></ListBucketResult>');
    expect(root).toEqual({ name: 'ListBucketResult', text: '', children: [{ name: 'Name', text: 'media', children: [] }, { name: 'Empty', text: '', children: [] }] });
  });

  test('resolves the five named entities, decimal and hexadecimal references and CDATA', () => {
    expect(readXml('<Key>a&amp;b&lt;c&gt;d&quot;e&apos;f&#233;&#x1F600;<![CDATA[<raw>&amp;]]></Key>').text).toBe('a&b<c>d"e\'fé😀<raw>&amp;');
  });

  test('escapes what it unescapes', () => {
    const text = `media/x/<'&">`;
    expect(escapeXml(text)).toBe('media/x/&lt;&apos;&amp;&quot;&gt;');
    expect(unescapeXml(escapeXml(text))).toBe(text);
  });

  test.each([
    ['a truncated answer', '<ListBucketResult><Contents><Key>media/a</Key>'],
    ['a mismatched closing tag', '<Contents><Key>media/a</Size></Contents>'],
    ['an unknown entity', '<Key>a&nbsp;b</Key>'],
    ['an unterminated entity', '<Key>a&amp b</Key>'],
    ['a reference out of range', '<Key>&#x110000;</Key>'],
    ['content after the root', '<Error/><Error/>'],
    ['no element at all', 'Service Unavailable'],
    ['an empty answer', ''],
  ])('refuses %s', (_, source) => {
    expect(() => readXml(source)).toThrow(XmlReadError);
  });
});
