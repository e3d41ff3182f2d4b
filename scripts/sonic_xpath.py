# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""sonic_xpath: SONiC's YANG must/when rules and leafref paths compiled
into JSON trees, for scripts/sonic-catalogue (config/sonic/README.md,
"Rules between entries"). Standard library only."""
import re
# ---- must/when rules and leafref paths: a small XPath subset, compiled ----
#
# SONiC's rules are XPath 1.0 (RFC 7950 7.5.3, 7.21.5). The subset compiled
# here, into JSON trees xfab evaluates (user/lib/config/sonic_refs.c):
#   literals 'x' "x" and numbers; or, and; = != < <= > >=; + - *; ( );
#   not() boolean() contains() starts-with() substring-before()
#   substring-after() string-length() concat() count() current() true() false();
#   paths of named steps and "..", from current(), "." or the rule's node, or
#   absolute (/module/TABLE/TABLE_LIST/leaf), with predicates [leaf = operand
#   and ...] on a list step, an operand being a literal or a path from
#   current().
# A rule using anything else (re-match, text(), "." inside a predicate, a
# predicate on a leaf-list, div, mod) is kept as text only and counted as
# skipped. A tree is a JSON array, its first item the operator:
#   ["str", s] ["num", n] ["cur"] (the rule's leaf's value)
#   ["field", F] (field F of the rule's entry; a key leaf is a key part)
#   ["select", TABLE, LIST, [[LEAF, tree], ...], F or null] (F's values over
#       the entries of TABLE's LIST matching the predicates; null: the entries)
#   ["or"|"and"|"="|"!="|"<"|"<="|">"|">="|"+"|"-"|"*", a, b]
#   ["fn", NAME, args...]
XP_TOKEN = re.compile(r"""\s+|'[^']*'|"[^"]*"|\d+(?:\.\d+)?|!=|<=|>=|\.\.|[=<>()\[\]/,.+*-]|"""
                      r"""[A-Za-z_][A-Za-z0-9_-]*(?::[A-Za-z_][A-Za-z0-9_-]*)?""")
XP_FUNCS = {"not": (1, 1), "boolean": (1, 1), "contains": (2, 2), "starts-with": (2, 2),
            "substring-before": (2, 2), "substring-after": (2, 2), "string-length": (0, 1),
            "concat": (2, 9), "count": (1, 1), "true": (0, 0), "false": (0, 0)}


class XPathSkip(Exception):
    """The rule is outside the compiled subset."""


class XPath:
    """Compiles one expression whose context node is a leaf (level 4:
    module container 1, table 2, list entry 3, leaf 4) or a list entry
    (level 3) of table/list."""

    def __init__(self, text, table, lst, level):
        self.toks = [t for t in XP_TOKEN.findall(text) if not t.isspace()]
        if "".join(self.toks) != re.sub(r"\s+", "", text):
            raise XPathSkip("unread characters")
        self.pos, self.table, self.list, self.level = 0, table, lst, level

    def peek(self, k=0):
        return self.toks[self.pos + k] if self.pos + k < len(self.toks) else None

    def take(self, want=None):
        tok = self.peek()
        if tok is None or (want is not None and tok != want):
            raise XPathSkip("expected %s at %s" % (want, tok))
        self.pos += 1
        return tok

    def compile(self):
        tree = self.expr()
        if self.peek() is not None:
            raise XPathSkip("trailing %s" % self.peek())
        return tree

    def binary(self, sub, ops):
        left = sub()
        while self.peek() in ops:
            op = self.take()
            left = [op, left, sub()]
        return left

    def expr(self):
        return self.binary(self.and_expr, ("or",))

    def and_expr(self):
        return self.binary(self.eq_expr, ("and",))

    def eq_expr(self):
        return self.binary(self.rel_expr, ("=", "!="))

    def rel_expr(self):
        return self.binary(self.add_expr, ("<", "<=", ">", ">="))

    def add_expr(self):
        return self.binary(self.mul_expr, ("+", "-"))

    def mul_expr(self):
        return self.binary(self.primary, ("*",))

    def primary(self):
        tok = self.peek()
        if tok is None:
            raise XPathSkip("ends early")
        if tok == "(":
            self.take()
            tree = self.expr()
            self.take(")")
            return tree
        if tok[0] in "'\"":
            self.take()
            return ["str", tok[1:-1]]
        if tok[0].isdigit():
            self.take()
            return ["num", float(tok) if "." in tok else int(tok)]
        if self.peek(1) == "(" and tok != "current":
            return self.call()
        return self.path()

    def call(self):
        name = self.take()
        if name not in XP_FUNCS:
            raise XPathSkip("function %s" % name)
        self.take("(")
        args = []
        while self.peek() != ")":
            if args:
                self.take(",")
            args.append(self.expr())
        self.take(")")
        lo, hi = XP_FUNCS[name]
        if not lo <= len(args) <= hi:
            raise XPathSkip("%s with %d arguments" % (name, len(args)))
        if name == "count" and args[0][0] not in ("field", "select"):
            raise XPathSkip("count of no path")
        return ["fn", name] + args

    def steps(self):
        """The path's steps: ("up",), ("self",), ("name", N, preds)."""
        out = []
        while True:
            tok = self.take()
            if tok == "..":
                out.append(("up",))
            elif tok == ".":
                out.append(("self",))
            elif re.match(r"[A-Za-z_]", tok) and self.peek() != "(":
                name = tok.rpartition(":")[2]
                preds = []
                while self.peek() == "[":
                    preds += self.predicate()
                out.append(("name", name, preds))
            else:
                raise XPathSkip("step %s" % tok)
            if self.peek() != "/":
                return out
            self.take("/")

    def predicate(self):
        self.take("[")
        preds = []
        while True:
            leaf = self.take()
            if not re.match(r"[A-Za-z_]", leaf) or self.peek() == "(":
                raise XPathSkip("predicate on %s" % leaf)
            self.take("=")
            if self.peek()[0] in "'\"":
                operand = ["str", self.take()[1:-1]]
            elif self.peek() == "current":
                operand = self.path()
            else:
                raise XPathSkip("predicate operand %s" % self.peek())
            preds.append([leaf.rpartition(":")[2], operand])
            if self.peek() != "and":
                break
            self.take("and")
        self.take("]")
        return preds

    def path(self):
        """A location path as ["cur"], ["field", F] or ["select", ...]."""
        if self.peek() == "/":
            self.take("/")
            return self.resolve(self.steps(), 0)
        if self.peek() == "current":
            self.take()
            self.take("(")
            self.take(")")
            if self.peek() != "/":
                return self.resolve([], self.level)
            self.take("/")
        return self.resolve(self.steps(), self.level)

    def resolve(self, steps, level):
        own = level == self.level  # still on the rule's own node
        table, lst, preds, leaf = self.table, self.list, [], None
        for st in steps:
            if st[0] == "self":
                continue
            if st[0] == "up":
                level -= 1
                own = False if level < 3 else own
                if level < 1:
                    raise XPathSkip("above the root")
                continue
            level += 1
            if st[2] and level != 3:
                raise XPathSkip("predicate on a leaf or a table")
            if level == 2:
                table = st[1]
            elif level == 3:
                lst, preds = st[1], st[2]
            elif level == 4:
                leaf = st[1]
            elif level > 4:
                raise XPathSkip("below a leaf")
        if own and level == 4:
            return ["field", leaf] if leaf else ["cur"]
        if own or level < 3:
            raise XPathSkip("a path to an entry or a table itself")
        return ["select", table, lst, preds, leaf if level == 4 else None]


def compile_rule(text, table, lst, level):
    """The compiled tree of a rule, or None when outside the subset."""
    try:
        return XPath(text, table, lst, level).compile()
    except XPathSkip:
        return None


class RuleCompiler:
    """Compiles, in place, the rules and leafref paths of one table's lists,
    counting what the subset holds and what it does not."""

    def __init__(self):
        self.count = {"compiled": 0, "skipped": 0, "leafrefs": 0, "leafrefs_skipped": 0}

    def rules(self, holder, table, lst, level):
        for rule in holder.get("must", []):
            self.one(rule, "tree", rule["expr"], table, lst, level)
        if "when" in holder:
            self.one(holder, "when_tree", holder["when"], table, lst, level)

    def one(self, holder, slot, text, table, lst, level):
        tree = compile_rule(text, table, lst, level)
        self.count["compiled" if tree else "skipped"] += 1
        if tree:
            holder[slot] = tree

    def typ(self, t, table, lst):
        """A field's type: its rules, and its leafref's target as a tree."""
        self.rules(t, table, lst, 4)
        for member in t.get("types", []):
            self.typ(member, table, lst)
        if t.get("type") == "leafref":
            tree = compile_rule(t["path"], table, lst, 4)
            ok = tree is not None and tree[0] == "select" and tree[4]
            self.count["leafrefs" if ok else "leafrefs_skipped"] += 1
            if ok:
                t["ref"] = tree

    def list_(self, table, entry):
        lst = entry["name"]
        self.rules(entry, table, lst, 3)
        for t in list(entry["fields"].values()) + list(entry.get("key_types", {}).values()):
            self.typ(t, table, lst)
        if "map" in entry:
            self.typ(entry["map"]["key_type"], table, lst)
            self.typ(entry["map"]["value_type"], table, lst)

