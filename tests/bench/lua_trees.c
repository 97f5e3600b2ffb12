/*
 * A Lua 5.4 host for `make bench-apps`: runs the binary-trees script below (trees built and
 * checked, a long-lived tree beside them) at the depth given. Linked with Debian's static
 * liblua5.4.a (built without frame pointers), whose allocator calls realloc and free: linked with
 * msamp, those go through its wrappers.
 *   lua_trees DEPTH
 */
#include <stdio.h>
#include <stdlib.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

static const char script[] =
    "local depth_max = ...\n"
    "local function tree(d)\n"
    "  if d == 0 then return {} end\n"
    "  d = d - 1\n"
    "  return { tree(d), tree(d) }\n"
    "end\n"
    "local function check(t)\n"
    "  if t[1] == nil then return 1 end\n"
    "  return 1 + check(t[1]) + check(t[2])\n"
    "end\n"
    "local out = {}\n"
    "out[#out + 1] = ('stretch tree of depth %d check %d'):format(depth_max + 1, check(tree(depth_max + 1)))\n"
    "local long_lived = tree(depth_max)\n"
    "for d = 4, depth_max, 2 do\n"
    "  local iterations, sum = 1 << (depth_max - d + 4), 0\n"
    "  for _ = 1, iterations do sum = sum + check(tree(d)) end\n"
    "  out[#out + 1] = ('%d trees of depth %d check %d'):format(iterations, d, sum)\n"
    "end\n"
    "out[#out + 1] = ('long lived tree of depth %d check %d'):format(depth_max, check(long_lived))\n"
    "return table.concat(out, '\\n')\n";

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: lua_trees DEPTH\n", stderr);
        return 2;
    }
    lua_State *L = luaL_newstate();
    if (L == NULL)
        return 1;
    luaL_openlibs(L);
    if (luaL_loadbuffer(L, script, sizeof script - 1, "trees") != LUA_OK) {
        fprintf(stderr, "lua_trees: %s\n", lua_tostring(L, -1));
        return 1;
    }
    lua_pushinteger(L, strtol(argv[1], NULL, 10));
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        fprintf(stderr, "lua_trees: %s\n", lua_tostring(L, -1));
        return 1;
    }
    printf("%s\n", lua_tostring(L, -1));
    lua_close(L);
    return 0;
}
