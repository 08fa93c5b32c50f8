"""A small evaluator of Lamina's path templates (the `{"template": …}` form of `path`), for
scripts/scene-cairo. Written from the language's description (docs/scene-format.md,
"Path templates"; Sources/LaminaExpression/README.md, "The language" and
"Evaluation never traps"), not from the Swift code: a tokenizer, a recursive-descent parser
to tuples, and a tree walker.

    ops = evaluate(source, bounds=[x, y, w, h], inputs={"sides": 5, ...})

returns the path as ('M', x, y) / ('L', x, y) / ('C', c1x, c1y, c2x, c2y, x, y) / ('Z',)
tuples (quadratics raised to cubics), the form scene-cairo traces. A NaN or infinite drawing
argument empties the whole path, as Lamina documents. Limits are not enforced beyond the
iteration cap (scene files given to this script are trusted test scenes).
"""
import math
import re

MAX_LOOP_ITERATIONS = 10000

KAPPA = 0.5522847498307936  # 4/3 (√2 − 1)


class TemplateError(Exception):
    pass


TOKEN = re.compile(r"""
    (?P<space>[ \t\r]+) | (?P<comment>//[^\n]*) | (?P<newline>\n)
  | (?P<number>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\.\.<|==|!=|<=|>=|&&|\|\||[-+*/%<>!?:=(),{};.])
""", re.VERBOSE)

# A line continues after these (a binary operator, `?`, `:`, `=`, `..<`, a comma).
CONTINUES = {"+", "-", "*", "/", "%", "<", ">", "<=", ">=", "==", "!=", "&&", "||", "?", ":", "=", "..<", ",", "{"}


def tokenize(source):
    tokens, depth, pos = [], 0, 0
    while pos < len(source):
        m = TOKEN.match(source, pos)
        if not m:
            raise TemplateError("unexpected character %r at offset %d" % (source[pos], pos))
        pos = m.end()
        kind = m.lastgroup
        text = m.group(kind)
        if kind in ("space", "comment"):
            continue
        if kind == "newline":
            # Ignored inside parentheses, after an operator that needs more, and repeated.
            if depth > 0 or not tokens or tokens[-1] == ("op", ";") or tokens[-1][0] == "nl" \
                    or (tokens[-1][0] == "op" and tokens[-1][1] in CONTINUES):
                continue
            tokens.append(("nl", "\n"))
            continue
        if kind == "op" and text == "(":
            depth += 1
        elif kind == "op" and text == ")":
            depth -= 1
        if kind == "number":
            tokens.append(("num", float(text)))
        else:
            tokens.append((kind, text))
    tokens.append(("end", None))
    return tokens


RECT_FIELDS = ("minX", "midX", "maxX", "minY", "midY", "maxY", "width", "height")
DRAW_ARITY = {"move": 2, "line": 2, "quad": 4, "curve": 6, "arc": 6, "close": 0, "rect": 4, "ellipse": 4,
              "roundedRect": 5}
FUNCTIONS = {"floor": 1, "ceil": 1, "round": 1, "abs": 1, "sqrt": 1, "sin": 1, "cos": 1, "tan": 1, "asin": 1,
             "acos": 1, "atan": 1, "pow": 2, "atan2": 2, "hypot": 2, "clamp": 3, "lerp": 3, "min": None, "max": None}
# Binary operators by level, loosest first (all left-associative).
LEVELS = [("||",), ("&&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"), ("*", "/", "%")]


class Parser:
    def __init__(self, source):
        self.t = tokenize(source)
        self.i = 0

    def peek(self, k=0):
        return self.t[self.i + k]

    def take(self):
        tok = self.t[self.i]
        self.i += 1
        return tok

    def expect(self, text):
        tok = self.take()
        if tok[1] != text:
            raise TemplateError("expected %r, got %r" % (text, tok[1]))

    def skip_separators(self):
        while self.peek()[0] == "nl" or self.peek() == ("op", ";"):
            self.i += 1

    def template(self):
        body = self.statements(top=True)
        if self.peek()[0] != "end":
            raise TemplateError("unexpected %r" % (self.peek()[1],))
        return body

    def statements(self, top=False):
        out = []
        self.skip_separators()
        while self.peek()[0] != "end" and self.peek() != ("op", "}"):
            out.append(self.statement())
            if self.peek()[0] == "nl" or self.peek() == ("op", ";"):
                self.skip_separators()
            elif self.peek()[0] != "end" and self.peek() != ("op", "}") and self.t[self.i - 1] != ("op", "}"):
                raise TemplateError("expected a new line or ';', got %r" % (self.peek()[1],))
        return out

    def block(self):
        self.expect("{")
        body = self.statements()
        self.expect("}")
        return body

    def statement(self):
        kind, text = self.peek()
        if kind != "name":
            raise TemplateError("expected a statement, got %r" % (text,))
        if text == "let":
            self.take()
            name = self.take()[1]
            self.expect("=")
            return ("let", name, self.expr())
        if text == "for":
            self.take()
            name = self.take()[1]
            self.expect("in")
            lower = self.expr()
            self.expect("..<")
            upper = self.expr()
            return ("for", name, lower, upper, self.block())
        if text == "if":
            return self.if_statement()
        if text not in DRAW_ARITY:
            raise TemplateError("unknown statement %r" % text)
        self.take()
        args = self.arguments()
        if len(args) != DRAW_ARITY[text]:
            raise TemplateError("%s takes %d arguments" % (text, DRAW_ARITY[text]))
        return ("draw", text, args)

    def if_statement(self):
        self.expect("if")
        cond = self.expr()
        then = self.block()
        otherwise = []
        # `else` may start the next line.
        k = self.i
        while self.t[k][0] == "nl":
            k += 1
        if self.t[k] == ("name", "else"):
            self.i = k + 1
            otherwise = [self.if_statement()] if self.peek() == ("name", "if") else self.block()
        return ("if", cond, then, otherwise)

    def arguments(self):
        self.expect("(")
        args = []
        if self.peek() != ("op", ")"):
            args.append(self.expr())
            while self.peek() == ("op", ","):
                self.take()
                args.append(self.expr())
        self.expect(")")
        return args

    def expr(self):
        cond = self.binary(0)
        if self.peek() == ("op", "?"):
            self.take()
            a = self.expr()
            self.expect(":")
            b = self.expr()
            return ("?", cond, a, b)
        return cond

    def binary(self, level):
        if level == len(LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek()[0] == "op" and self.peek()[1] in LEVELS[level]:
            op = self.take()[1]
            left = ("bin", op, left, self.binary(level + 1))
        return left

    def unary(self):
        if self.peek() in (("op", "-"), ("op", "!")):
            op = self.take()[1]
            return ("un", op, self.unary())
        return self.primary()

    def primary(self):
        kind, text = self.take()
        if kind == "num":
            return ("num", text)
        if kind == "op" and text == "(":
            e = self.expr()
            self.expect(")")
            return e
        if kind != "name":
            raise TemplateError("expected a value, got %r" % (text,))
        if text == "rect":
            self.expect(".")
            field = self.take()[1]
            if field not in RECT_FIELDS:
                raise TemplateError("rect has no field %r" % field)
            return ("rect", field)
        if text == "pi":
            return ("num", math.pi)
        if self.peek() == ("op", "("):
            if text not in FUNCTIONS:
                raise TemplateError("unknown function %r" % text)
            args = self.arguments()
            n = FUNCTIONS[text]
            if (n is None and len(args) < 2) or (n is not None and len(args) != n):
                raise TemplateError("wrong number of arguments to %s" % text)
            return ("call", text, args)
        return ("var", text)


# ---------------------------------------------------------------- evaluation

def truth(v):
    return v == v and v != 0   # NaN is false


def fmin(a, b):
    if a != a:
        return b
    if b != b:
        return a
    return min(a, b)


def fmax(a, b):
    if a != a:
        return b
    if b != b:
        return a
    return max(a, b)


def divide(a, b):
    if b == 0:
        if a != a or a == 0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    try:
        return a / b
    except OverflowError:
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def round_half_away(x):
    if not math.isfinite(x):
        return x
    return math.copysign(math.floor(abs(x) + 0.5), x)


def call(name, args):
    try:
        if name == "floor":
            return float(math.floor(args[0])) if math.isfinite(args[0]) else args[0]
        if name == "ceil":
            return float(math.ceil(args[0])) if math.isfinite(args[0]) else args[0]
        if name == "round":
            return round_half_away(args[0])
        if name == "abs":
            return abs(args[0])
        if name == "sqrt":
            return math.sqrt(args[0]) if args[0] >= 0 else math.nan
        if name in ("sin", "cos", "tan", "asin", "acos", "atan"):
            return getattr(math, name)(args[0])
        if name == "pow":
            return math.pow(args[0], args[1])
        if name == "atan2":
            return math.atan2(args[0], args[1])
        if name == "hypot":
            return math.hypot(args[0], args[1])
        if name == "clamp":
            return fmin(fmax(args[0], args[1]), args[2])
        if name == "lerp":
            return args[0] + (args[1] - args[0]) * args[2]
        if name in ("min", "max"):
            f = fmin if name == "min" else fmax
            v = args[0]
            for a in args[1:]:
                v = f(v, a)
            return v
    except (ValueError, OverflowError):
        return math.nan
    raise TemplateError("unknown function %r" % name)


class Machine:
    def __init__(self, bounds, inputs):
        x, y, w, h = bounds
        x0, x1 = min(x, x + w), max(x, x + w)
        y0, y1 = min(y, y + h), max(y, y + h)
        self.rect = {"minX": x0, "midX": (x0 + x1) / 2, "maxX": x1, "minY": y0, "midY": (y0 + y1) / 2, "maxY": y1,
                     "width": x1 - x0, "height": y1 - y0}
        self.inputs = inputs
        self.iterations = MAX_LOOP_ITERATIONS
        self.ops = []
        self.current = None     # the current point
        self.start = None       # the subpath's first point
        self.non_finite = False

    # Values

    def value(self, e, env):
        kind = e[0]
        if kind == "num":
            return e[1]
        if kind == "rect":
            return self.rect[e[1]]
        if kind == "var":
            for scope in reversed(env):
                if e[1] in scope:
                    return scope[e[1]]
            if e[1] in self.inputs:
                return self.inputs[e[1]]
            raise TemplateError("unknown name %r" % e[1])
        if kind == "?":
            return self.value(e[2] if truth(self.value(e[1], env)) else e[3], env)
        if kind == "un":
            v = self.value(e[2], env)
            return -v if e[1] == "-" else (0.0 if truth(v) else 1.0)
        if kind == "call":
            return call(e[1], [self.value(a, env) for a in e[2]])
        op, a = e[1], self.value(e[2], env)
        if op == "&&":
            return 1.0 if truth(a) and truth(self.value(e[3], env)) else 0.0
        if op == "||":
            return 1.0 if truth(a) or truth(self.value(e[3], env)) else 0.0
        b = self.value(e[3], env)
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            try:
                return a * b
            except OverflowError:
                return math.inf
        if op == "/":
            return divide(a, b)
        if op == "%":
            return math.fmod(a, b) if b != 0 and math.isfinite(a) else math.nan
        return 1.0 if {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[op] else 0.0

    # Statements

    def run(self, statements, env):
        env = env + [{}]
        for s in statements:
            kind = s[0]
            if kind == "let":
                env[-1][s[1]] = self.value(s[2], env)
            elif kind == "if":
                self.run(s[2] if truth(self.value(s[1], env)) else s[3], env)
            elif kind == "for":
                i, upper = self.value(s[2], env), self.value(s[3], env)
                while i < upper and self.iterations > 0:
                    self.iterations -= 1
                    self.run(s[4], env + [{s[1]: i}])
                    if i + 1 == i:
                        break
                    i += 1
            else:
                self.draw(s[1], [self.value(a, env) for a in s[2]])

    def draw(self, command, a):
        if self.non_finite:
            return
        if not all(math.isfinite(v) for v in a):
            self.non_finite = True
            return
        if command == "move":
            self.move(a[0], a[1])
        elif command == "line":
            self.line(a[0], a[1])
        elif command == "quad":
            cx, cy = self.current or (0.0, 0.0)
            qx, qy, x, y = a
            self.cubic(cx + 2 / 3 * (qx - cx), cy + 2 / 3 * (qy - cy), x + 2 / 3 * (qx - x), y + 2 / 3 * (qy - y), x, y)
        elif command == "curve":
            self.cubic(*a)
        elif command == "close":
            self.ops.append(("Z",))
            self.current = self.start
        elif command == "arc":
            self.arc(a[0], a[1], a[2], a[3], a[4], truth(a[5]))
        elif command == "rect":
            x, y, w, h = a
            self.move(x, y)
            self.line(x + w, y)
            self.line(x + w, y + h)
            self.line(x, y + h)
            self.draw("close", [])
        elif command == "ellipse":
            self.oval(*a)
        elif command == "roundedRect":
            self.rounded(*a)

    def move(self, x, y):
        self.ops.append(("M", x, y))
        self.current = self.start = (x, y)

    def line(self, x, y):
        self.ops.append(("L", x, y))
        self.current = (x, y)

    def cubic(self, c1x, c1y, c2x, c2y, x, y):
        self.ops.append(("C", c1x, c1y, c2x, c2y, x, y))
        self.current = (x, y)

    def arc(self, cx, cy, r, a0, a1, increasing):
        """Angles from +x toward +y; `increasing` sweeps with growing angle; at most a turn."""
        sweep = a1 - a0
        turn = 2 * math.pi
        if increasing:
            if sweep < 0 or sweep > turn:
                sweep = math.fmod(sweep, turn)
                if sweep < 0:
                    sweep += turn
        else:
            if sweep > 0 or sweep < -turn:
                sweep = math.fmod(sweep, turn)
                if sweep > 0:
                    sweep -= turn
        sx, sy = cx + r * math.cos(a0), cy + r * math.sin(a0)
        if self.current is None:
            self.move(sx, sy)
        else:
            self.line(sx, sy)
        pieces = max(1, int(math.ceil(abs(sweep) / (math.pi / 2) - 1e-12)))
        step = sweep / pieces
        k = 4 / 3 * math.tan(step / 4)
        angle = a0
        for _ in range(pieces):
            b = angle + step
            p0 = (cx + r * math.cos(angle), cy + r * math.sin(angle))
            p3 = (cx + r * math.cos(b), cy + r * math.sin(b))
            c1 = (p0[0] - k * r * math.sin(angle), p0[1] + k * r * math.cos(angle))
            c2 = (p3[0] + k * r * math.sin(b), p3[1] - k * r * math.cos(b))
            self.cubic(c1[0], c1[1], c2[0], c2[1], p3[0], p3[1])
            angle = b

    def oval(self, x, y, w, h):
        rx, ry, mx, my = w / 2, h / 2, x + w / 2, y + h / 2
        kx, ky = rx * KAPPA, ry * KAPPA
        self.move(mx + rx, my)
        self.cubic(mx + rx, my + ky, mx + kx, my + ry, mx, my + ry)
        self.cubic(mx - kx, my + ry, mx - rx, my + ky, mx - rx, my)
        self.cubic(mx - rx, my - ky, mx - kx, my - ry, mx, my - ry)
        self.cubic(mx + kx, my - ry, mx + rx, my - ky, mx + rx, my)
        self.draw("close", [])

    def rounded(self, x, y, w, h, r):
        r = max(0.0, min(r, abs(w) / 2, abs(h) / 2))
        k = r * KAPPA
        self.move(x + r, y)
        self.line(x + w - r, y)
        self.cubic(x + w - r + k, y, x + w, y + r - k, x + w, y + r)
        self.line(x + w, y + h - r)
        self.cubic(x + w, y + h - r + k, x + w - r + k, y + h, x + w - r, y + h)
        self.line(x + r, y + h)
        self.cubic(x + r - k, y + h, x, y + h - r + k, x, y + h - r)
        self.line(x, y + r)
        self.cubic(x, y + r - k, x + r - k, y, x + r, y)
        self.draw("close", [])


def evaluate(source, bounds, inputs):
    """The path of template `source` for a layer with `bounds` ([x, y, w, h]) and custom
    properties `inputs` (name → number, or a list whose first number counts)."""
    values = {}
    for k, v in (inputs or {}).items():
        if isinstance(v, list):
            v = v[0] if v else math.nan
        values[k] = float(v)
    machine = Machine(bounds, values)
    machine.run(Parser(source).template(), [])
    return [] if machine.non_finite else machine.ops
