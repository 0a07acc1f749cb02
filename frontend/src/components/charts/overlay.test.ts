import { describe, expect, it } from "vitest";
import { overlayUpdate } from "./overlay";

describe("an overlay's relayout", () => {
  const layout = { shapes: [{ name: "figure's" }], title: "t" };

  it("sets the next overlay's keys", () => {
    const annotations = [{ text: "a" }];
    expect(overlayUpdate([], { annotations }, layout)).toEqual({ annotations });
  });

  it("gives what the overlay before set and the next does not back to the figure's own, or none", () => {
    const shapes = [{ name: "mark" }];
    expect(overlayUpdate(["shapes", "annotations"], {}, layout)).toEqual({ shapes: layout.shapes, annotations: null });
    expect(overlayUpdate(["annotations"], { shapes }, layout)).toEqual({ shapes, annotations: null });
  });
});
