#!/usr/bin/env python3
"""Reads the Go client's expression builder calls (`as.ExpEq(as.ExpIntBin("a"),
as.ExpIntVal(1))`, as its tests write them) and writes them in the JSON
notation of shared/spec/exp-json.md (`["cmp_eq", ["bin_int", "a"], 1]`).

Used by gen_go_suite_exp.py on the test files of a checkout of
aerospike-client-go. It knows the Go source shapes those tests use: calls,
`as.NewValue(x)`, composite literals (`[]int{...}`, `[]byte{...}`,
`map[string]interface{}{...}`, `[]as.Value{...}`), strings, numbers, `|`
between flags, and the package's constants (return types, ExpType*, flags).
Anything else raises Untranslatable with the offending text.
"""
import re


class Untranslatable(Exception):
    pass


INF = {"$inf": True}


# --- tokens and a tiny parser ------------------------------------------------------------------
TOKEN = re.compile(r"""
    (?P<ws>\s+|//[^\n]*)
  | (?P<str>"(?:[^"\\]|\\.)*"|`[^`]*`)
  | (?P<num>-?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|\d+\.\d*(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)?))
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
  | (?P<punct>\.\.\.|[()\[\]{},:|*&-])
""", re.X)


def tokens(text):
    out, at = [], 0
    while at < len(text):
        m = TOKEN.match(text, at)
        if not m:
            raise Untranslatable("cannot read Go at: %r" % text[at:at + 40])
        at = m.end()
        if m.lastgroup != "ws":
            out.append((m.lastgroup, m.group(m.lastgroup)))
    return out


class Node:
    def __init__(self, kind, **kw):
        self.kind = kind
        self.__dict__.update(kw)

    def __repr__(self):
        return "Node(%s, %s)" % (self.kind, {k: v for k, v in self.__dict__.items() if k != "kind"})


class Parser:
    def __init__(self, text):
        self.t = tokens(text)
        self.i = 0

    def peek(self, k=0):
        return self.t[self.i + k] if self.i + k < len(self.t) else (None, None)

    def take(self, want=None):
        tok = self.peek()
        if want is not None and tok[1] != want:
            raise Untranslatable("expected %r, got %r" % (want, tok[1]))
        self.i += 1
        return tok

    def done(self):
        return self.i >= len(self.t)

    def expr(self):
        left = self.unary()
        while self.peek()[1] == "|":
            self.take()
            left = Node("or", a=left, b=self.unary())
        return left

    def unary(self):
        if self.peek()[1] == "&":
            self.take()
        if self.peek()[1] == "-":
            self.take()
            return Node("neg", a=self.unary())
        return self.primary()

    def type_name(self):
        """[]T, [N]T, *T, map[K]V, interface{}, as.Value: a type, as text."""
        kind, v = self.peek()
        if v == "[":
            self.take()
            if self.peek()[1] != "]":
                self.take()
            self.take("]")
            return "[]" + self.type_name()
        if v == "*":
            self.take()
            return "*" + self.type_name()
        if v == "map":
            self.take()
            self.take("[")
            k = self.type_name()
            self.take("]")
            return "map[%s]%s" % (k, self.type_name())
        if kind == "name":
            self.take()
            if v == "interface":
                self.take("{")
                self.take("}")
                return "interface{}"
            return v
        raise Untranslatable("expected a type, got %r" % (v,))

    def primary(self):
        kind, v = self.peek()
        if kind == "str":
            self.take()
            return Node("lit", v=go_string(v))
        if kind == "num":
            self.take()
            return Node("lit", v=go_number(v))
        if v == "(":
            self.take()
            e = self.expr()
            self.take(")")
            return e
        if v == "[" or v == "map":
            ty = self.type_name()
            if self.peek()[1] == "(":  # a conversion: []byte("x")
                self.take()
                e = self.expr()
                self.take(")")
                return Node("conv", ty=ty, a=e)
            return self.composite(ty)
        if kind == "name":
            self.take()
            if v in ("true", "false"):
                return Node("lit", v=(v == "true"))
            if v == "nil":
                return Node("lit", v=None)
            if self.peek()[1] == "(":
                self.take()
                args, spread = [], False
                while self.peek()[1] != ")":
                    args.append(self.expr())
                    if self.peek()[1] == "...":
                        self.take()
                        spread = True
                    if self.peek()[1] == ",":
                        self.take()
                self.take(")")
                return Node("call", f=v, args=args, spread=spread)
            if self.peek()[1] == "{":
                return self.composite(v)
            return Node("ident", name=v)
        raise Untranslatable("unexpected %r" % (v,))

    def composite(self, ty):
        self.take("{")
        elems = []
        while self.peek()[1] != "}":
            if self.peek()[1] == "{":  # an elided element type
                e = self.composite("")
            else:
                e = self.expr()
            if self.peek()[1] == ":":
                self.take()
                e = (e, self.expr() if self.peek()[1] != "{" else self.composite(""))
            elems.append(e)
            if self.peek()[1] == ",":
                self.take()
        self.take("}")
        return Node("composite", ty=ty, elems=elems)


def go_string(s):
    if s.startswith("`"):
        return s[1:-1]
    return bytes(s[1:-1], "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")


def go_number(s):
    neg = s.startswith("-")
    body = s[1:] if neg else s
    body = body.replace("_", "")
    if body[:2].lower() == "0x":
        v = int(body, 16)
    elif body[:2].lower() == "0b":
        v = int(body, 2)
    elif re.fullmatch(r"\d+", body):
        v = int(body)
    else:
        v = float(body)
    return -v if neg else v


def parse(text):
    p = Parser(text)
    e = p.expr()
    if not p.done():
        raise Untranslatable("trailing Go after the expression: %r" % (p.t[p.i:p.i + 5],))
    return e


# --- the client's names -------------------------------------------------------------------------
RT = {"NONE": "NONE", "INDEX": "INDEX", "REVERSE_INDEX": "REVERSE_INDEX", "RANK": "RANK",
      "REVERSE_RANK": "REVERSE_RANK", "COUNT": "COUNT", "KEY": "KEY", "VALUE": "VALUE",
      "KEY_VALUE": "KEY_VALUE", "EXISTS": "EXISTS", "UNORDERED_MAP": "UNORDERED_MAP",
      "ORDERED_MAP": "ORDERED_MAP"}
LIST_RT = {"ListReturnType" + "".join(w.capitalize() for w in k.split("_")): k for k in RT}
VTYPE = {"ExpType" + t: t for t in ["NIL", "BOOL", "INT", "STRING", "LIST", "MAP", "BLOB", "FLOAT", "GEO", "HLL"]}
VTYPE["ExpTypeSTRING"] = "STR"

SIMPLE = {
    "ExpEq": "cmp_eq", "ExpNotEq": "cmp_ne", "ExpGreater": "cmp_gt", "ExpGreaterEq": "cmp_ge",
    "ExpLess": "cmp_lt", "ExpLessEq": "cmp_le", "ExpGeoCompare": "cmp_geo",
    "ExpAnd": "and", "ExpOr": "or", "ExpNot": "not", "ExpExclusive": "exclusive",
    "ExpNumAdd": "add", "ExpNumSub": "sub", "ExpNumMul": "mul", "ExpNumDiv": "div", "ExpNumPow": "pow",
    "ExpNumLog": "log", "ExpNumMod": "mod", "ExpNumAbs": "abs", "ExpNumFloor": "floor", "ExpNumCeil": "ceil",
    "ExpToInt": "to_int", "ExpToFloat": "to_float", "ExpIntAnd": "int_and", "ExpIntOr": "int_or",
    "ExpIntXor": "int_xor", "ExpIntNot": "int_not", "ExpIntLShift": "int_lshift", "ExpIntRShift": "int_rshift",
    "ExpIntARShift": "int_arshift", "ExpIntCount": "int_count", "ExpIntLScan": "int_lscan",
    "ExpIntRScan": "int_rscan", "ExpMin": "min", "ExpMax": "max", "ExpCond": "cond", "ExpLet": "let",
    "ExpUnknown": "unknown", "ExpKeyExists": "key_exist", "ExpSetName": "set_name",
    "ExpRecordSize": "record_size", "ExpDeviceSize": "device_size", "ExpMemorySize": "memory_size",
    "ExpLastUpdate": "last_update", "ExpSinceUpdate": "since_update", "ExpVoidTime": "void_time",
    "ExpTTL": "ttl", "ExpIsTombstone": "is_tombstone",
}
BINS = {"ExpIntBin": "bin_int", "ExpStringBin": "bin_str", "ExpFloatBin": "bin_float", "ExpBlobBin": "bin_blob",
        "ExpListBin": "bin_list", "ExpMapBin": "bin_map", "ExpBoolBin": "bin_bool", "ExpHLLBin": "bin_hll",
        "ExpGeoBin": "bin_geo", "ExpBinExists": "bin_exists", "ExpBinType": "bin_type", "ExpVar": "var"}


def snake(s):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", s).lower()


def cdt_name(f):
    """ExpListGetByIndexRangeCount -> list_get_by_index_range (the Go names
    a range without a count "...Range" and with one "...RangeCount")."""
    n = snake(f[3:])
    n = n.replace("relative_", "rel_")
    if n.startswith("list_"):
        n = n.replace("by_value_rel_rank", "by_rel_rank")
    if n.endswith("_range_count"):
        return n[:-len("_count")]
    if n.endswith(("index_range", "rank_range")) and not n.endswith("value_range"):
        return n + "_to_end"
    return n


CTX = {"CtxListIndex": ("list_index", "index"), "CtxListRank": ("list_rank", "rank"),
       "CtxListValue": ("list_value", "value"), "CtxMapIndex": ("map_index", "index"),
       "CtxMapRank": ("map_rank", "rank"), "CtxMapKey": ("map_key", "key"), "CtxMapValue": ("map_value", "value")}


class Translator:
    """env: Go identifiers (local variables, bin-name constants) -> Nodes or
    Python values."""

    def __init__(self, env=None):
        self.env = dict(env or {})

    def name(self, n):
        return n[3:] if n.startswith("as.") else n

    # plain Go values (not expressions): NewValue(x), literals, composites
    def value(self, node):
        k = node.kind
        if k == "lit":
            v = node.v
            return {"$double": v} if isinstance(v, float) else v
        if k == "neg":
            v = self.value(node.a)
            return {"$double": -v["$double"]} if isinstance(v, dict) else -v
        if k == "ident":
            if node.name in self.env:
                e = self.env[node.name]
                return self.value(e) if isinstance(e, Node) else e
            raise Untranslatable("unknown identifier %s" % node.name)
        if k == "conv":
            if node.ty == "[]byte":
                return {"$bytes": self.value(node.a).encode().hex()}
            if node.ty in ("float64", "float32"):
                return {"$double": float(self.value(node.a))}
            raise Untranslatable("conversion to %s" % node.ty)
        if k == "composite":
            if node.ty == "[]byte":
                return {"$bytes": bytes(self.value(e) for e in node.elems).hex()}
            if node.ty.startswith("map") or node.ty in ("as.BinMap", "BinMap", "as.MapValue"):
                return {"$map": [[self.value(a), self.value(b)] for a, b in node.elems]}
            return [self.value(e) for e in node.elems]
        if k == "call":
            f = self.name(node.f)
            if f in ("NewValue", "StringValue", "IntegerValue", "LongValue", "NewStringValue", "NewIntegerValue",
                     "BytesValue", "ListValue", "NewListValue", "MapValue", "NewMapValue", "ValueArray"):
                return self.value(node.args[0])
            if f in ("FloatValue", "NewFloatValue", "float64"):
                return {"$double": float(self.value(node.args[0]))}
            if f == "HLLValue":
                v = self.value(node.args[0])
                return {"$hll": v["$bytes"]} if isinstance(v, dict) else {"$hll": bytes(v).hex()}
            if f == "NewInfinityValue":
                return {"$inf": True}
            if f == "NewWildCardValue":
                return {"$wildcard": True}
            if f == "NewNullValue":
                return None
            if f.startswith("Exp"):
                return self.exp(node)
        raise Untranslatable("not a value: %r" % node)

    def const(self, node):
        """A Go constant argument: return type, value type, flags."""
        if node.kind == "or":
            a, b = self.const(node.a), self.const(node.b)
            if b == "INVERTED":
                return [a, "INVERTED"]
            if a == "INVERTED":
                return [b, "INVERTED"]
            return (a if isinstance(a, list) else [a]) + (b if isinstance(b, list) else [b])
        if node.kind == "ident":
            n = self.name(node.name)
            if n in self.env:
                e = self.env[n]
                return self.const(e) if isinstance(e, Node) else e
            if n in ("ListReturnTypeInverted", "MapReturnType.INVERTED"):
                return "INVERTED"
            if n.startswith("MapReturnType."):
                return RT[n.split(".")[1]]
            if n in LIST_RT:
                return LIST_RT[n]
            if n in VTYPE:
                return VTYPE[n]
            flags = {"ExpReadFlagDefault": [], "ExpReadFlagEvalNoFail": ["EVAL_NO_FAIL"],
                     "ExpWriteFlagDefault": [], "ExpWriteFlagCreateOnly": ["CREATE_ONLY"],
                     "ExpWriteFlagUpdateOnly": ["UPDATE_ONLY"], "ExpWriteFlagAllowDelete": ["ALLOW_DELETE"],
                     "ExpWriteFlagPolicyNoFail": ["POLICY_NO_FAIL"], "ExpWriteFlagEvalNoFail": ["EVAL_NO_FAIL"],
                     "ExpRegexFlagNONE": [], "ExpRegexFlagEXTENDED": ["EXTENDED"], "ExpRegexFlagICASE": ["ICASE"],
                     "ExpRegexFlagNOSUB": ["NOSUB"], "ExpRegexFlagNEWLINE": ["NEWLINE"],
                     "BitResizeFlagsDefault": [], "BitResizeFlagsFromFront": ["FROM_FRONT"],
                     "BitResizeFlagsGrowOnly": ["GROW_ONLY"], "BitResizeFlagsShrinkOnly": ["SHRINK_ONLY"],
                     "ListSortFlagsDefault": [], "ListSortFlagsDescending": ["DESCENDING"],
                     "ListSortFlagsDropDuplicates": ["DROP_DUPLICATES"],
                     "BitOverflowActionFail": "FAIL", "BitOverflowActionSaturate": "SATURATE",
                     "BitOverflowActionWrap": "WRAP"}
            if n in flags:
                return flags[n]
        if node.kind == "lit":
            return node.v
        raise Untranslatable("unknown constant %r" % node)

    def flags(self, node):
        c = self.const(node)
        return c if isinstance(c, list) else [c]

    def policy(self, node):
        if node.kind == "lit" and node.v is None:
            return None
        if node.kind == "call":
            f = self.name(node.f)
            if f in ("DefaultListPolicy", "DefaultMapPolicy", "DefaultBitPolicy", "DefaultHLLPolicy"):
                return None
        raise Untranslatable("policy %r" % node)

    def ctx(self, nodes):
        if not nodes:
            return None
        out = []
        for n in nodes:
            f = self.name(n.f)
            kind, field = CTX[f]
            out.append({"type": kind, field: self.value(n.args[0])})
        return out

    def exp(self, node):
        if node.kind in ("lit", "neg"):
            return self.value(node)
        if node.kind != "call":
            if node.kind == "ident" and node.name in self.env:
                e = self.env[node.name]
                return self.exp(e) if isinstance(e, Node) else e
            raise Untranslatable("not an expression call: %r" % node)
        f = self.name(node.f)
        a = node.args
        if f == "ExpIntVal" or f == "ExpStringVal" or f == "ExpBoolVal":
            return self.value(a[0])
        if f == "ExpFloatVal":
            v = self.value(a[0])
            return v if isinstance(v, dict) else {"$double": float(v)}
        if f == "ExpBlobVal":
            v = self.value(a[0])
            return v if isinstance(v, dict) else {"$bytes": bytes(v).hex()}
        if f == "ExpNilValue":
            return None
        if f == "ExpInfinityValue":
            return {"$inf": True}
        if f == "ExpWildCardValue":
            return {"$wildcard": True}
        if f in ("ExpListVal", "ExpListValueVal"):
            if node.spread:
                return {"$list": self.value(a[0])}
            return {"$list": [self.value(x) for x in a]}
        if f == "ExpMapVal":
            return self.value(a[0])
        if f in SIMPLE:
            return [SIMPLE[f]] + [self.exp(x) for x in a]
        if f in BINS:
            return [BINS[f], self.value(a[0])]
        if f == "ExpDef":
            return ["def", self.value(a[0]), self.exp(a[1])]
        if f == "ExpDigestModulo":
            return ["digest_modulo", self.value(a[0])]
        if f == "ExpKey":
            t = self.const(a[0])
            return [{"INT": "key_int", "STR": "key_str", "BLOB": "key_blob"}[t]]
        if f == "ExpRegexCompare":
            return ["cmp_regex", self.flags(a[1]), self.value(a[0]), self.exp(a[2])]
        if f.startswith("ExpList") or f.startswith("ExpMap"):
            return self.cdt(f, a)
        if f.startswith("ExpBit"):
            return self.bit(f, a)
        if f.startswith("ExpHLL"):
            return self.hll(f, a)
        raise Untranslatable("no translation for %s" % f)

    def cdt(self, f, a):
        args = [x for x in a if not (x.kind == "call" and self.name(x.f) in CTX)]
        ctx = self.ctx([x for x in a if x.kind == "call" and self.name(x.f) in CTX])
        name = cdt_name(f)
        out = [name, ctx]
        i = 0
        if name in ("list_sort",):
            return out + [self.flags(args[0]), self.exp(args[1])]
        if re.search(r"_(append|append_items|insert|insert_items|increment|set|put|put_items)$", name):
            out.append(self.policy(args[0]))
            i = 1
        elif "_get_by_" in name or "_remove_by_" in name:
            if not re.search(r"remove_by_(index|rank|key)$", name):
                out.append(self.const(args[0]))
                i = 1
                if re.search(r"get_by_(index|rank|key)$", name):
                    out.append(self.const(args[1]))
                    i = 2
        rest = args[i:]
        if name.endswith(("key_range", "value_range")) and rest[1].kind == "lit" and rest[1].v is None:
            # The Go client leaves a nil range end out (no end: to the last
            # item); the C macro takes an expression: INF, the same range.
            rest = [rest[0], Node("lit", v=INF)] + rest[2:]
        out += [self.exp(x) for x in rest]
        return out

    def hll(self, f, a):
        """The Go HLL builders as the C macros: ExpHLLAdd is hll_update (no
        bit counts), ...WithIndex hll_add, ...WithIndexAndMinHash hll_add_mh."""
        names = {"ExpHLLInit": "hll_init", "ExpHLLInitWithMinHash": "hll_init_mh", "ExpHLLAdd": "hll_update",
                 "ExpHLLAddWithIndex": "hll_add", "ExpHLLAddWithIndexAndMinHash": "hll_add_mh"}
        if f in names:
            return [names[f], self.policy(a[0])] + [self.exp(x) for x in a[1:]]
        return ["hll_" + snake(f[6:])] + [self.exp(x) for x in a]

    def bit(self, f, a):
        name = snake(f[3:]).replace("l_shift", "lshift").replace("r_shift", "rshift") \
            .replace("l_scan", "lscan").replace("r_scan", "rscan")
        if name in ("bit_add", "bit_subtract"):
            # Go: policy, offset, size, value, signed, action, bin
            signed = self.value(a[4])
            return [name + "_signed" if signed else name, self.policy(a[0]), self.exp(a[1]), self.exp(a[2]),
                    self.exp(a[3])] + ([True] if signed else []) + [self.const(a[5]), self.exp(a[6])]
        if name == "bit_resize":
            return [name, self.policy(a[0]), self.exp(a[1]), self.flags(a[2]), self.exp(a[3])]
        if name == "bit_get_int":
            return [name, self.exp(a[0]), self.exp(a[1]), self.value(a[2]), self.exp(a[3])]
        if name in ("bit_get", "bit_count", "bit_lscan", "bit_rscan"):
            return [name] + [self.exp(x) for x in a]
        return [name, self.policy(a[0])] + [self.exp(x) for x in a[1:]]


def translate(text, env=None):
    return Translator(env).exp(parse(text))
