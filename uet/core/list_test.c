/* The intrusive list (uet/list.h): order, unlinking from the middle, the
 * self-linked "not queued" state, LIFO pushes and removal while walking. */
#include <criterion/criterion.h>

#include "uet/list.h"

struct item {
	int v;
	struct uet_list link;
};

static int values(const struct uet_list *h, int *out, int cap)
{
	const struct uet_list *l;
	int n = 0;

	for (l = h->next; l != h && n < cap; l = l->next)
		out[n++] = uet_container_of(l, struct item, link)->v;
	return n;
}

Test(list, order_and_unlink)
{
	struct item it[4] = { { .v = 0 }, { .v = 1 }, { .v = 2 }, { .v = 3 } };
	struct uet_list h;
	int got[4], i;

	uet_list_init(&h);
	cr_assert(uet_list_empty(&h));
	cr_assert_null(uet_list_first(&h));
	for (i = 0; i < 4; i++) {
		uet_list_init(&it[i].link);
		cr_assert_not(uet_list_linked(&it[i].link));
	}
	uet_list_add_tail(&h, &it[1].link);
	uet_list_add_tail(&h, &it[2].link);
	uet_list_add(&h, &it[0].link);		/* at the front */
	uet_list_add_tail(&h, &it[3].link);
	cr_assert_eq(values(&h, got, 4), 4);
	for (i = 0; i < 4; i++)
		cr_assert_eq(got[i], i);
	uet_list_del(&it[2].link);
	cr_assert_not(uet_list_linked(&it[2].link));
	uet_list_del(&it[2].link);		/* harmless again */
	cr_assert_eq(values(&h, got, 4), 3);
	cr_assert_eq(got[1], 1);
	cr_assert_eq(got[2], 3);
	cr_assert_eq(uet_list_first(&h), &it[0].link);
	cr_assert_eq(h.prev, &it[3].link);
}

Test(list, pop_and_foreach_safe)
{
	struct item it[5];
	struct uet_list h, *pos, *tmp;
	int got[5], n, i;

	uet_list_init(&h);
	for (i = 0; i < 5; i++) {
		it[i].v = i;
		uet_list_add_tail(&h, &it[i].link);
	}
	/* Unlink the odd ones while walking. */
	uet_list_foreach_safe(pos, tmp, &h)
		if (uet_container_of(pos, struct item, link)->v & 1)
			uet_list_del(pos);
	n = values(&h, got, 5);
	cr_assert_eq(n, 3);
	cr_assert_eq(got[0] + got[1] + got[2], 0 + 2 + 4);
	cr_assert_eq(uet_list_pop(&h), &it[0].link);
	cr_assert_not(uet_list_linked(&it[0].link));
	cr_assert_eq(uet_list_pop(&h), &it[2].link);
	cr_assert_eq(uet_list_pop(&h), &it[4].link);
	cr_assert_null(uet_list_pop(&h));
	cr_assert(uet_list_empty(&h));
}
