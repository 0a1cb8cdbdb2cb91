import CNcursesw
import Testing
@testable import TableUI

@Suite struct KeyTests {
    @Test func charactersAndControlKeys() {
        #expect(Key.decode(0x0D, isFunctionKey: false) == .enter)
        #expect(Key.decode(0x0A, isFunctionKey: false) == .enter)
        #expect(Key.decode(0x09, isFunctionKey: false) == .tab)
        #expect(Key.decode(0x7F, isFunctionKey: false) == .backspace)
        #expect(Key.decode(0x08, isFunctionKey: false) == .backspace)
        #expect(Key.decode(0x1B, isFunctionKey: false) == .escape)
        #expect(Key.decode(0x6A, isFunctionKey: false) == .character("j"))
        #expect(Key.decode(0xE9, isFunctionKey: false) == .character("é"))
        #expect(Key.decode(0x6771, isFunctionKey: false) == .character("東"))
        #expect(Key.decode(0xD800, isFunctionKey: false) == nil)  // not a scalar
    }

    @Test func functionKeys() {
        let cases: [(Int32, Key)] = [
            (KEY_UP, .up), (KEY_DOWN, .down), (KEY_LEFT, .left), (KEY_RIGHT, .right),
            (KEY_PPAGE, .pageUp), (KEY_NPAGE, .pageDown), (KEY_HOME, .home), (KEY_END, .end),
            (KEY_ENTER, .enter), (KEY_BACKSPACE, .backspace), (KEY_DC, .delete), (KEY_BTAB, .backTab),
            (cn_key_resize(), .resize), (KEY_F0 + 5, .function(5)), (KEY_IC, .unknown(Int(KEY_IC))),
        ]
        for (code, key) in cases {
            #expect(Key.decode(UInt32(bitPattern: code), isFunctionKey: true) == key)
        }
    }
}
