/// Feeds in the shape of each generation of NDBC's `latest_obs` RSS, written for these tests
/// (the layout follows feeds NDBC published; the values are made up).
enum RSSGenerationSamples {
    /// About 2012, a station outside the US zones (WMO area 62, off western Europe): a 24-hour
    /// `HHMM UTC` time, a `station_page.php?…&ts=<Unix time>` guid, `UT` dates, and neither
    /// gust nor dominant period.
    static let utc2012Station62081 = """
        <?xml version="1.0"?>
        <?xml-stylesheet type="text/xsl" href="/rss/ndbcrss.xsl"?>
        <rss version="2.0" xmlns:georss="http://www.georss.org/georss" xmlns:dc="http://purl.org/dc/elements/1.1/">
          <channel>
            <title>NDBC - Station 62081 - K2 Buoy Observations</title>
            <description><![CDATA[This feed shows recent marine weather observations from Station 62081.]]></description>
            <link>http://www.ndbc.noaa.gov/</link>
            <pubDate>Thu, 04 Oct 2012 17:47:00 UT</pubDate>
            <item>
              <pubDate>Thu, 04 Oct 2012 17:47:00 UT</pubDate>
              <title>Station 62081 - K2 Buoy</title>
              <description><![CDATA[
                <strong>October 4, 2012 1700 UTC</strong><br />
                <strong>Location:</strong> 51N 13.3W<br />
                <strong>Wind Direction:</strong> SW (230&#176;)<br />
                <strong>Wind Speed:</strong> 21.4 knots<br />
                <strong>Significant Wave Height:</strong> 11.5 ft<br />
                <strong>Average Period:</strong> 7 sec<br />
                <strong>Atmospheric Pressure:</strong> 29.81 in (1009.4 mb)<br />
                <strong>Pressure Tendency:</strong> -0.03 in (-1.1 mb)<br />
                <strong>Air Temperature:</strong> 56.1&#176;F (13.4&#176;C)<br />
              ]]></description>
              <link>http://www.ndbc.noaa.gov/station_page.php?station=62081</link>
              <guid>http://www.ndbc.noaa.gov/station_page.php?station=62081&amp;ts=1349370000</guid>
              <georss:point>51.000 -13.300</georss:point>
            </item>
          </channel>
        </rss>
        """

    /// About 2014, a US station: a 12-hour time with a US zone abbreviation, and the
    /// `station_page.php?…&ts=<Unix time>` guid.
    static let twelveHour2014Station41001 = """
        <?xml version="1.0"?>
        <rss version="2.0" xmlns:georss="http://www.georss.org/georss" xmlns:dc="http://purl.org/dc/elements/1.1/">
          <channel>
            <title>NDBC - Station 41001 - EAST HATTERAS - 150 NM East of Cape Hatteras Observations</title>
            <item>
              <title>Station 41001 - EAST HATTERAS - 150 NM East of Cape Hatteras</title>
              <description><![CDATA[
                <strong>September 18, 2014 6:50 am EDT</strong><br />
                <strong>Location:</strong> 34.675N 72.698W<br />
                <strong>Wind Direction:</strong> NE (50&#176;)<br />
                <strong>Wind Speed:</strong> 15.5 knots<br />
                <strong>Wind Gust:</strong> 19.4 knots<br />
                <strong>Significant Wave Height:</strong> 6.9 ft<br />
                <strong>Dominant Wave Period:</strong> 9 sec<br />
                <strong>Average Period:</strong> 6.3 sec<br />
                <strong>Mean Wave Direction:</strong> ENE (62&#176;)<br />
                <strong>Water Temperature:</strong> 80.8&#176;F (27.1&#176;C)<br />
              ]]></description>
              <link>http://www.ndbc.noaa.gov/station_page.php?station=41001</link>
              <guid>http://www.ndbc.noaa.gov/station_page.php?station=41001&amp;ts=1411037400</guid>
              <georss:point>34.675 -72.698</georss:point>
            </item>
          </channel>
        </rss>
        """

    /// Since about 2016: a 12-hour time with a US zone abbreviation, an `NDBC-<station>-<UTC>`
    /// guid, and a wave-only buoy (no wind, no gust, no pressure).
    static let waveOnly2024Station46274 = """
        <?xml version="1.0"?>
        <rss version="2.0" xmlns:georss="http://www.georss.org/georss" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom">
          <channel>
            <title>NDBC - Station 46274 - Leucadia Nearshore, CA (262) Observations</title>
            <pubDate>Mon, 04 Mar 2024 22:30:43 +0000</pubDate>
            <item>
              <pubDate>Mon, 04 Mar 2024 22:30:43 +0000</pubDate>
              <title>Station 46274 - Leucadia Nearshore, CA (262)</title>
              <description><![CDATA[
                <strong>March 4, 2024 1:56 pm PST</strong><br />
                <strong>Location:</strong> 33.062N 117.314W<br />
                <strong>Significant Wave Height:</strong> 4.6 ft<br />
                <strong>Dominant Wave Period:</strong> 13 sec<br />
                <strong>Average Period:</strong> 6.8 sec<br />
                <strong>Mean Wave Direction:</strong> W (263&#176;) <br />
                <strong>Water Temperature:</strong> 62.2&#176;F (16.8&#176;C)<br />
              ]]></description>
              <link>https://www.ndbc.noaa.gov/station_page.php?station=46274</link>
              <guid isPermaLink="false">NDBC-46274-20240304215600</guid>
              <georss:point>33.062 -117.314</georss:point>
            </item>
          </channel>
        </rss>
        """

    /// Since about 2016, a station outside the US zones: a 24-hour `HH:MM UTC` time and an
    /// `NDBC-<station>-<UTC>` guid; waves without a dominant period.
    static let utc2022Station62145 = """
        <?xml version="1.0"?>
        <rss version="2.0" xmlns:georss="http://www.georss.org/georss" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom">
          <channel>
            <title>NDBC - Station 62145 - North Sea Platform Observations</title>
            <item>
              <title>Station 62145 - North Sea Platform</title>
              <description><![CDATA[
                <strong>February 27, 2022 11:00 UTC</strong><br />
                <strong>Location:</strong> 53.102N 2.8E<br />
                <strong>Wind Direction:</strong> W (270&#176;)<br />
                <strong>Wind Speed:</strong> 25.3 knots<br />
                <strong>Wind Gust:</strong> 31.1 knots<br />
                <strong>Significant Wave Height:</strong> 9.8 ft<br />
                <strong>Average Period:</strong> 5.9 sec<br />
              ]]></description>
              <link>https://www.ndbc.noaa.gov/station_page.php?station=62145</link>
              <guid isPermaLink="false">NDBC-62145-20220227110000</guid>
              <georss:point>53.102 2.800</georss:point>
            </item>
          </channel>
        </rss>
        """
}
