import { describe, expect, it } from "vitest";
import { renderMarkdown } from "./markdown";

describe("report notes as markdown", () => {
  it("renders headings, paragraphs, lists, emphasis, code and links", () => {
    const html = renderMarkdown(
      "# Tahoe\n\nMDMF is **fast**, CHK *slower*.\nSame paragraph.\n\n- one\n- `k=3`\n\n1. first\n2. second\n\n> quoted\n\n```\na < b\n```\n\n[trac](https://tahoe-lafs.org/trac) ---",
    );
    expect(html).toBe(
      [
        "<h1>Tahoe</h1>",
        "<p>MDMF is <strong>fast</strong>, CHK <em>slower</em>. Same paragraph.</p>",
        "<ul><li>one</li><li><code>k=3</code></li></ul>",
        "<ol><li>first</li><li>second</li></ol>",
        "<blockquote><p>quoted</p></blockquote>",
        "<pre><code>a &lt; b</code></pre>",
        '<p><a href="https://tahoe-lafs.org/trac" rel="noopener noreferrer">trac</a> ---</p>',
      ].join("\n"),
    );
  });

  it("never lets raw HTML or script URLs through", () => {
    const html = renderMarkdown('<script>alert(1)</script>\n\n<img src=x onerror="alert(2)">\n\n[x](javascript:void%280%29) [y](data:text/html,hi) `<b>`');
    expect(html).not.toMatch(/<script|<img|href="javascript|href="data/i);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(2)&quot;&gt;");
    expect(html).toContain("<code>&lt;b&gt;</code>");
    // The link text stays, without a link.
    expect(html).toMatch(/<p>x y/);
  });

  it("keeps underscores inside names such as create.ops_per_s", () => {
    expect(renderMarkdown("create.ops_per_s and _this_")).toBe("<p>create.ops_per_s and <em>this</em></p>");
  });
});
