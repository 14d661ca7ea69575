"""RFC 5545 §3.8.5.3 recurrence examples, each with the dates the RFC lists (all 09:00 local
America/New_York unless written with a time). For 'forever' rules, the RFC's first dates."""

from __future__ import annotations

NY = "DTSTART;TZID=America/New_York:"


def days(year: int, month: int, numbers: list[int], time: str = "09:00") -> list[str]:
    return [f"{year:04d}-{month:02d}-{n:02d} {time}" for n in numbers]


def month_range(year: int, month: int, first: int, last: int) -> list[str]:
    return days(year, month, list(range(first, last + 1)))


# (id, schedule text, expected local "YYYY-MM-DD HH:MM" list, whether the list is the whole series)
EXAMPLES: list[tuple[str, str, list[str], bool]] = [
    (
        "daily-count-10",
        NY + "19970902T090000 RRULE:FREQ=DAILY;COUNT=10",
        month_range(1997, 9, 2, 11),
        True,
    ),
    (
        "daily-until-dec-24",
        NY + "19970902T090000 RRULE:FREQ=DAILY;UNTIL=19971224T000000Z",
        month_range(1997, 9, 2, 30)
        + month_range(1997, 10, 1, 31)
        + month_range(1997, 11, 1, 30)
        + month_range(1997, 12, 1, 23),
        True,
    ),
    (
        "every-other-day",
        NY + "19970902T090000 RRULE:FREQ=DAILY;INTERVAL=2",
        days(1997, 9, [2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]),
        False,
    ),
    (
        "every-10-days-5",
        NY + "19970902T090000 RRULE:FREQ=DAILY;INTERVAL=10;COUNT=5",
        days(1997, 9, [2, 12, 22]) + days(1997, 10, [2, 12]),
        True,
    ),
    (
        "january-3-years-yearly",
        NY + "19980101T090000 RRULE:FREQ=YEARLY;UNTIL=20000131T140000Z;"
        "BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA",
        month_range(1998, 1, 1, 31) + month_range(1999, 1, 1, 31) + month_range(2000, 1, 1, 31),
        True,
    ),
    (
        "january-3-years-daily",
        NY + "19980101T090000 RRULE:FREQ=DAILY;UNTIL=20000131T140000Z;BYMONTH=1",
        month_range(1998, 1, 1, 31) + month_range(1999, 1, 1, 31) + month_range(2000, 1, 1, 31),
        True,
    ),
    (
        "weekly-10",
        NY + "19970902T090000 RRULE:FREQ=WEEKLY;COUNT=10",
        days(1997, 9, [2, 9, 16, 23, 30]) + days(1997, 10, [7, 14, 21, 28]) + days(1997, 11, [4]),
        True,
    ),
    (
        "weekly-until-dec-24",
        NY + "19970902T090000 RRULE:FREQ=WEEKLY;UNTIL=19971224T000000Z",
        days(1997, 9, [2, 9, 16, 23, 30])
        + days(1997, 10, [7, 14, 21, 28])
        + days(1997, 11, [4, 11, 18, 25])
        + days(1997, 12, [2, 9, 16, 23]),
        True,
    ),
    (
        "every-other-week",
        NY + "19970902T090000 RRULE:FREQ=WEEKLY;INTERVAL=2;WKST=SU",
        days(1997, 9, [2, 16, 30])
        + days(1997, 10, [14, 28])
        + days(1997, 11, [11, 25])
        + days(1997, 12, [9, 23])
        + days(1998, 1, [6, 20])
        + days(1998, 2, [3, 17]),
        False,
    ),
    (
        "tue-thu-5-weeks-until",
        NY + "19970902T090000 RRULE:FREQ=WEEKLY;UNTIL=19971007T000000Z;WKST=SU;BYDAY=TU,TH",
        days(1997, 9, [2, 4, 9, 11, 16, 18, 23, 25, 30]) + days(1997, 10, [2]),
        True,
    ),
    (
        "tue-thu-5-weeks-count",
        NY + "19970902T090000 RRULE:FREQ=WEEKLY;COUNT=10;WKST=SU;BYDAY=TU,TH",
        days(1997, 9, [2, 4, 9, 11, 16, 18, 23, 25, 30]) + days(1997, 10, [2]),
        True,
    ),
    (
        "mo-we-fr-every-other-week",
        NY + "19970901T090000 RRULE:FREQ=WEEKLY;INTERVAL=2;"
        "UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR",
        days(1997, 9, [1, 3, 5, 15, 17, 19, 29])
        + days(1997, 10, [1, 3, 13, 15, 17, 27, 29, 31])
        + days(1997, 11, [10, 12, 14, 24, 26, 28])
        + days(1997, 12, [8, 10, 12, 22]),
        True,
    ),
    (
        "tu-th-every-other-week-8",
        NY + "19970902T090000 RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=8;WKST=SU;BYDAY=TU,TH",
        days(1997, 9, [2, 4, 16, 18, 30]) + days(1997, 10, [2, 14, 16]),
        True,
    ),
    (
        "first-friday-10",
        NY + "19970905T090000 RRULE:FREQ=MONTHLY;COUNT=10;BYDAY=1FR",
        days(1997, 9, [5])
        + days(1997, 10, [3])
        + days(1997, 11, [7])
        + days(1997, 12, [5])
        + days(1998, 1, [2])
        + days(1998, 2, [6])
        + days(1998, 3, [6])
        + days(1998, 4, [3])
        + days(1998, 5, [1])
        + days(1998, 6, [5]),
        True,
    ),
    (
        "first-friday-until",
        NY + "19970905T090000 RRULE:FREQ=MONTHLY;UNTIL=19971224T000000Z;BYDAY=1FR",
        days(1997, 9, [5]) + days(1997, 10, [3]) + days(1997, 11, [7]) + days(1997, 12, [5]),
        True,
    ),
    (
        "first-last-sunday-every-other-month",
        NY + "19970907T090000 RRULE:FREQ=MONTHLY;INTERVAL=2;COUNT=10;BYDAY=1SU,-1SU",
        days(1997, 9, [7, 28])
        + days(1997, 11, [2, 30])
        + days(1998, 1, [4, 25])
        + days(1998, 3, [1, 29])
        + days(1998, 5, [3, 31]),
        True,
    ),
    (
        "second-to-last-monday-6",
        NY + "19970922T090000 RRULE:FREQ=MONTHLY;COUNT=6;BYDAY=-2MO",
        days(1997, 9, [22])
        + days(1997, 10, [20])
        + days(1997, 11, [17])
        + days(1997, 12, [22])
        + days(1998, 1, [19])
        + days(1998, 2, [16]),
        True,
    ),
    (
        "third-to-last-day",
        NY + "19970928T090000 RRULE:FREQ=MONTHLY;BYMONTHDAY=-3",
        days(1997, 9, [28])
        + days(1997, 10, [29])
        + days(1997, 11, [28])
        + days(1997, 12, [29])
        + days(1998, 1, [29])
        + days(1998, 2, [26]),
        False,
    ),
    (
        "2nd-and-15th-10",
        NY + "19970902T090000 RRULE:FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15",
        days(1997, 9, [2, 15])
        + days(1997, 10, [2, 15])
        + days(1997, 11, [2, 15])
        + days(1997, 12, [2, 15])
        + days(1998, 1, [2, 15]),
        True,
    ),
    (
        "first-and-last-day-10",
        NY + "19970930T090000 RRULE:FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1",
        days(1997, 9, [30])
        + days(1997, 10, [1, 31])
        + days(1997, 11, [1, 30])
        + days(1997, 12, [1, 31])
        + days(1998, 1, [1, 31])
        + days(1998, 2, [1]),
        True,
    ),
    (
        "every-18-months-10th-to-15th",
        NY + "19970910T090000 RRULE:FREQ=MONTHLY;INTERVAL=18;COUNT=10;BYMONTHDAY=10,11,12,13,14,15",
        month_range(1997, 9, 10, 15) + month_range(1999, 3, 10, 13),
        True,
    ),
    (
        "tuesdays-every-other-month",
        NY + "19970902T090000 RRULE:FREQ=MONTHLY;INTERVAL=2;BYDAY=TU",
        days(1997, 9, [2, 9, 16, 23, 30])
        + days(1997, 11, [4, 11, 18, 25])
        + days(1998, 1, [6, 13, 20, 27])
        + days(1998, 3, [3, 10, 17, 24, 31]),
        False,
    ),
    (
        "june-july-10",
        NY + "19970610T090000 RRULE:FREQ=YEARLY;COUNT=10;BYMONTH=6,7",
        [d for y in range(1997, 2002) for d in days(y, 6, [10]) + days(y, 7, [10])],
        True,
    ),
    (
        "jan-feb-mar-every-other-year",
        NY + "19970310T090000 RRULE:FREQ=YEARLY;INTERVAL=2;COUNT=10;BYMONTH=1,2,3",
        days(1997, 3, [10])
        + [d for y in (1999, 2001, 2003) for m in (1, 2, 3) for d in days(y, m, [10])],
        True,
    ),
    (
        "yeardays-every-third-year",
        NY + "19970101T090000 RRULE:FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200",
        days(1997, 1, [1])
        + days(1997, 4, [10])
        + days(1997, 7, [19])
        + days(2000, 1, [1])
        + days(2000, 4, [9])
        + days(2000, 7, [18])
        + days(2003, 1, [1])
        + days(2003, 4, [10])
        + days(2003, 7, [19])
        + days(2006, 1, [1]),
        True,
    ),
    (
        "20th-monday",
        NY + "19970519T090000 RRULE:FREQ=YEARLY;BYDAY=20MO",
        days(1997, 5, [19]) + days(1998, 5, [18]) + days(1999, 5, [17]),
        False,
    ),
    (
        "monday-of-week-20",
        NY + "19970512T090000 RRULE:FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO",
        days(1997, 5, [12]) + days(1998, 5, [11]) + days(1999, 5, [17]),
        False,
    ),
    (
        "thursdays-in-march",
        NY + "19970313T090000 RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=TH",
        days(1997, 3, [13, 20, 27])
        + days(1998, 3, [5, 12, 19, 26])
        + days(1999, 3, [4, 11, 18, 25]),
        False,
    ),
    (
        "thursdays-in-summer",
        NY + "19970605T090000 RRULE:FREQ=YEARLY;BYDAY=TH;BYMONTH=6,7,8",
        days(1997, 6, [5, 12, 19, 26])
        + days(1997, 7, [3, 10, 17, 24, 31])
        + days(1997, 8, [7, 14, 21, 28])
        + days(1998, 6, [4, 11, 18, 25])
        + days(1998, 7, [2, 9, 16, 23, 30])
        + days(1998, 8, [6, 13, 20, 27]),
        False,
    ),
    (
        "friday-13th-with-exdate",
        NY + "19970902T090000 EXDATE;TZID=America/New_York:19970902T090000 "
        "RRULE:FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13",
        days(1998, 2, [13])
        + days(1998, 3, [13])
        + days(1998, 11, [13])
        + days(1999, 8, [13])
        + days(2000, 10, [13]),
        False,
    ),
    (
        "saturday-after-first-sunday",
        NY + "19970913T090000 RRULE:FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13",
        days(1997, 9, [13])
        + days(1997, 10, [11])
        + days(1997, 11, [8])
        + days(1997, 12, [13])
        + days(1998, 1, [10])
        + days(1998, 2, [7])
        + days(1998, 3, [7])
        + days(1998, 4, [11])
        + days(1998, 5, [9])
        + days(1998, 6, [13]),
        False,
    ),
    (
        "us-election-day",
        NY + "19961105T090000 RRULE:FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;"
        "BYMONTHDAY=2,3,4,5,6,7,8",
        days(1996, 11, [5]) + days(2000, 11, [7]) + days(2004, 11, [2]),
        False,
    ),
    (
        "third-tu-we-th-3",
        NY + "19970904T090000 RRULE:FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3",
        days(1997, 9, [4]) + days(1997, 10, [7]) + days(1997, 11, [6]),
        True,
    ),
    (
        "second-to-last-weekday",
        NY + "19970929T090000 RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2",
        days(1997, 9, [29])
        + days(1997, 10, [30])
        + days(1997, 11, [27])
        + days(1997, 12, [30])
        + days(1998, 1, [29])
        + days(1998, 2, [26])
        + days(1998, 3, [30]),
        False,
    ),
    # The RFC prints UNTIL=19970902T170000Z (13:00 EDT) but lists 15:00; RFC errata 3883
    # corrects UNTIL to 210000Z (17:00 EDT), which is what gives the RFC's three times.
    (
        "every-3-hours-9-to-5",
        NY + "19970902T090000 RRULE:FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T210000Z",
        days(1997, 9, [2], "09:00") + days(1997, 9, [2], "12:00") + days(1997, 9, [2], "15:00"),
        True,
    ),
    (
        "every-15-minutes-6",
        NY + "19970902T090000 RRULE:FREQ=MINUTELY;INTERVAL=15;COUNT=6",
        [f"1997-09-02 {t}" for t in ("09:00", "09:15", "09:30", "09:45", "10:00", "10:15")],
        True,
    ),
    (
        "every-90-minutes-4",
        NY + "19970902T090000 RRULE:FREQ=MINUTELY;INTERVAL=90;COUNT=4",
        [f"1997-09-02 {t}" for t in ("09:00", "10:30", "12:00", "13:30")],
        True,
    ),
    (
        "every-20-minutes-daily",
        NY + "19970902T090000 RRULE:FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40",
        [
            f"1997-09-0{d} {h:02d}:{m:02d}"
            for d in (2, 3)
            for h in range(9, 17)
            for m in (0, 20, 40)
        ],
        False,
    ),
    (
        "every-20-minutes-minutely",
        NY + "19970902T090000 RRULE:FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11,12,13,14,15,16",
        [
            f"1997-09-0{d} {h:02d}:{m:02d}"
            for d in (2, 3)
            for h in range(9, 17)
            for m in (0, 20, 40)
        ],
        False,
    ),
    (
        "wkst-monday",
        NY + "19970805T090000 RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO",
        days(1997, 8, [5, 10, 19, 24]),
        True,
    ),
    (
        "wkst-sunday",
        NY + "19970805T090000 RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU",
        days(1997, 8, [5, 17, 19, 31]),
        True,
    ),
    (
        "invalid-dates-ignored",
        NY + "20070115T090000 RRULE:FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5",
        days(2007, 1, [15, 30]) + days(2007, 2, [15]) + days(2007, 3, [15, 30]),
        True,
    ),
]
